#include "ui/services/ServicesPage.h"

#include "core/registry/ServiceRegistry.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Session.h"
#include "ui/services/ServiceDetails.h"
#include "ui/services/ServicesModel.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

ServicesPage::ServicesPage(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new ServicesModel(this)),
      m_stack(new QStackedWidget(this)), m_view(new QTableView(this)), m_details(new QLabel(this)),
      m_empty(new QLabel(this)), m_summary(new QLabel(this)), m_status(new QLabel(this)),
      m_poll(new QTimer(this))
{
    setObjectName(QStringLiteral("servicesPage"));
    m_model->setObjectName(QStringLiteral("servicesModel"));
    m_empty->setObjectName(QStringLiteral("emptyStateLabel"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_empty->setText(
        tr("<p>No tollgated instance has registered under the prefix <b>%1</b>.</p>"
           "<p>Start one next to your application:</p>"
           "<p><code>tollgated --config FILE --url URL</code></p>"
           "<p>It shows here within seconds, with its health, decisions per second and cache; "
           "one that stops announcing itself is greyed out as stale.</p>")
            .arg(displayId(session->schema().prefix()).toHtmlEscaped()));
    m_stack->addWidget(makeInstancesPane());
    m_stack->addWidget(m_empty);
    m_stack->setCurrentWidget(m_empty);

    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Reading the service registry\u2026"));
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText); // unreadable entries go on a line of their own
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* refreshButton = new QPushButton(tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("refreshButton"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(refreshButton, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_status);

    connect(refreshButton, &QPushButton::clicked, this, &ServicesPage::refresh);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ServicesPage::showDetails);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ServicesPage::showDetails);
    m_poll->setInterval(kRefreshMs);
    connect(m_poll, &QTimer::timeout, this, &ServicesPage::refresh);
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && isVisible())
            refresh();
    });
}

// The table, and under it all of the selected instance (what its columns cut or scroll off).
QWidget* ServicesPage::makeInstancesPane()
{
    m_view->setObjectName(QStringLiteral("servicesTableView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    // An error can be a paragraph: the cell shows its start (the tooltip all of it), so the
    // columns after it stay in reach (fitErrorColumn()).
    m_view->horizontalHeader()->setSectionResizeMode(ServicesModel::LastErrorColumn,
                                                     QHeaderView::Interactive);

    m_details->setObjectName(QStringLiteral("detailsLabel"));
    m_details->setTextFormat(Qt::RichText);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // A 256-byte id or an error without spaces must not widen the window: such words are cut.
    m_details->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* details = new QGroupBox(tr("Selected instance"), this);
    details->setObjectName(QStringLiteral("detailsGroupBox"));
    auto* detailsLayout = new QVBoxLayout(details);
    detailsLayout->addWidget(m_details);
    auto* instances = new QWidget(this);
    auto* instancesLayout = new QVBoxLayout(instances);
    instancesLayout->setContentsMargins(0, 0, 0, 0);
    instancesLayout->addWidget(m_view, 1);
    instancesLayout->addWidget(details);
    return instances;
}

void ServicesPage::fitErrorColumn()
{
    // No error: as narrow as its header; a long one: cut at a width that leaves the cache and
    // gRPC columns on screen. Only when the errors change, so a width set by hand stays.
    const QAbstractItemView* view = m_view; // sizeHintForColumn() is public here
    const int column = ServicesModel::LastErrorColumn;
    const int wanted =
        qMin(qMax(m_view->horizontalHeader()->sectionSizeHint(column),
                  view->sizeHintForColumn(column)),
             m_view->fontMetrics().averageCharWidth() * 40);
    if (wanted == m_errorWidth)
        return;
    m_errorWidth = wanted;
    m_view->setColumnWidth(column, wanted);
}

bool ServicesPage::showsEmptyState() const
{
    return m_stack->currentWidget() == m_empty;
}

void ServicesPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
    m_poll->start();
}

void ServicesPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_poll->stop();
}

void ServicesPage::refresh()
{
    if (m_session->state() != ConnectionState::Connected) {
        m_status->setText(tr("Not connected: showing the last registry read."));
        return;
    }
    if (m_loading)
        return; // the last read is still out: reads never pile up
    m_loading = true;
    ServiceRegistry(m_session->client(), m_session->schema())
        .list(this, [this](Result<ServiceList> list) {
            m_loading = false;
            if (list)
                showList(std::move(*list));
            else
                m_status->setText(tr("Could not read the service registry: %1")
                                      .arg(list.error().toString().toHtmlEscaped()));
            Q_EMIT refreshed();
        });
}

void ServicesPage::showList(ServiceList list)
{
    QStringList unreadable;
    for (const QString& reason : list.unreadable)
        unreadable << reason.toHtmlEscaped();
    m_model->setList(std::move(list));
    fitErrorColumn();
    m_stack->setCurrentIndex(m_model->rowCount() > 0 ? 0 : 1);
    if (m_model->rowCount() > 0 && !m_view->selectionModel()->hasSelection())
        m_view->selectRow(0); // the pane below always describes someone
    showDetails();
    m_summary->setText(summaryText());
    QString status = tr("Updated %1, every %2 s while this page is shown.")
                         .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")))
                         .arg(kRefreshMs / 1000);
    if (!unreadable.isEmpty())
        status += QStringLiteral("<br>") +
                  tr("Unreadable entries: %1").arg(unreadable.join(QStringLiteral("; ")));
    m_status->setText(status);
}

void ServicesPage::showDetails()
{
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty() || rows.first().row() >= m_model->rowCount()) {
        m_details->setText(tr("Select an instance to see everything it registered."));
        return;
    }
    const ServiceInstance& instance = m_model->list().instances[size_t(rows.first().row())];
    m_details->setText(serviceDetailsHtml(instance, m_model->healthText(instance)));
}

QString ServicesPage::summaryText() const
{
    const ServiceList& list = m_model->list();
    int ready = 0;
    int stale = 0;
    for (const ServiceInstance& instance : list.instances) {
        const ServiceHealth health = serviceHealth(instance, list.serverNowMs);
        ready += health == ServiceHealth::Ready;
        stale += health == ServiceHealth::Stale;
    }
    const int total = int(list.instances.size());
    if (total == 0)
        return tr("No tollgated instance registered.");
    return tr("%1: %2 ready, %3 not ready, %4 stale.")
        .arg(countText(total, tr("tollgated instance"), tr("tollgated instances")))
        .arg(ready)
        .arg(total - ready - stale)
        .arg(stale);
}

} // namespace tollgate::ui
