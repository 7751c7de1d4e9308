#include "ui/dashboard/DashboardPage.h"

#include "ui/common/Session.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/RateChart.h"
#include "ui/dashboard/StatsSampler.h"

#include <QChart>
#include <QLegend>

#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

QTableView* makeTable(QAbstractItemModel* model, const QString& name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    // As wide as their content, so no action or user is cut to "co…"; the last takes the rest.
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

QLabel* sectionTitle(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    return label;
}

} // namespace

DashboardPage::DashboardPage(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_sampler(new StatsSampler(session, this)),
      m_actions(new ActionStatsModel(this)), m_nearLimit(new NearLimitModel(this)),
      m_hitsChart(new RateChart(tr("Hits per second"), m_actions, &ActionStats::hits, this)),
      m_denialsChart(
          new RateChart(tr("Denials per second"), m_actions, &ActionStats::denials, this)),
      m_status(new QLabel(this)),
      m_actionsView(makeTable(m_actions, QStringLiteral("actionStatsTableView"), this)),
      m_nearLimitView(makeTable(m_nearLimit, QStringLiteral("nearLimitTableView"), this))
{
    setObjectName(QStringLiteral("dashboardPage"));
    m_hitsChart->setObjectName(QStringLiteral("hitsChartView"));
    m_denialsChart->setObjectName(QStringLiteral("denialsChartView"));
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* tiles = new QHBoxLayout;
    tiles->addWidget(tile(tr("Server ops/s"), QStringLiteral("ops"), &m_ops));
    tiles->addWidget(tile(tr("Memory used"), QStringLiteral("memory"), &m_memory));
    tiles->addWidget(tile(tr("Clients"), QStringLiteral("clients"), &m_clients));
    tiles->addWidget(tile(tr("User-wide bans"), QStringLiteral("userBans"), &m_bans));

    // One legend for both (same colours per action), so at 1024 px each chart keeps half the
    // width; a click in it hides the action in both.
    m_denialsChart->chart()->legend()->hide();
    connect(m_hitsChart, &RateChart::actionVisibilityChanged, m_denialsChart,
            &RateChart::setActionVisible);
    auto* charts = new QHBoxLayout;
    charts->addWidget(m_hitsChart, 1);
    charts->addWidget(m_denialsChart, 1);
    // An empty server gets directions instead of two blank charts.
    m_guide = new QLabel(
        tr("<h3>No rate-limit traffic here yet</h3>"
           "<p>No policies yet: create one on the <b>Policies</b> page (Ctrl+3), or generate "
           "example traffic with <code>tollgatectl simulate</code>.</p>"
           "<p>Applications count hits with the Lua scripts (see the <b>Lua</b> page); the "
           "charts fill in as soon as they do.</p>"),
        this);
    m_guide->setObjectName(QStringLiteral("emptyGuideLabel"));
    m_guide->setAlignment(Qt::AlignCenter);
    m_guide->setWordWrap(true);
    m_guide->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_guide->hide();
    charts->addWidget(m_guide);

    auto* tables = new QGridLayout;
    tables->addWidget(sectionTitle(tr("Actions: now and active bans"), this), 0, 0);
    tables->addWidget(sectionTitle(tr("Near or over the limit"), this), 0, 1);
    tables->addWidget(m_actionsView, 1, 0);
    tables->addWidget(m_nearLimitView, 1, 1);
    tables->setColumnStretch(0, 1);
    tables->setColumnStretch(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(tiles);
    layout->addLayout(charts, 3);
    layout->addLayout(tables, 2);
    layout->addWidget(m_status);

    connect(m_sampler, &StatsSampler::actionsUpdated, this, [this] {
        m_actions->setActions(m_sampler->actions());
        m_actionsView->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
        const bool empty = m_sampler->actions().empty();
        m_guide->setVisible(empty);
        m_hitsChart->setVisible(!empty);
        m_denialsChart->setVisible(!empty);
        showScanSummary(); // replaces an error shown by an earlier failed sample
    });
    connect(m_sampler, &StatsSampler::nearLimitUpdated, this, [this] {
        m_nearLimit->setEntries(m_sampler->nearLimit());
        // New ids may be longer than the old ones: size to them (visible rows only).
        m_nearLimitView->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
        showScanSummary();
    });
    connect(m_sampler, &StatsSampler::serverUpdated, this, &DashboardPage::showServer);
    // A row opens its user: activated is Enter, and a double-click on every platform's style.
    connect(m_nearLimitView, &QTableView::activated, this, [this](const QModelIndex& index) {
        if (index.isValid() && index.row() < int(m_nearLimit->rows().size()))
            Q_EMIT userRequested(m_nearLimit->rows()[size_t(index.row())].user);
    });
    m_nearLimitView->setToolTip(tr("Double-click or Enter opens the user"));
    connect(m_sampler, &StatsSampler::failed, this, [this](const Error& error) {
        m_status->setText(tr("Could not sample: %1").arg(error.toString()));
    });
}

QWidget* DashboardPage::tile(const QString& title, const QString& name, QLabel** value)
{
    auto* frame = new QFrame(this);
    frame->setObjectName(name + QStringLiteral("TileFrame"));
    frame->setFrameShape(QFrame::StyledPanel);
    auto* caption = new QLabel(title, frame);
    caption->setObjectName(name + QStringLiteral("CaptionLabel"));
    *value = new QLabel(QStringLiteral("–"), frame);
    (*value)->setObjectName(name + QStringLiteral("ValueLabel"));
    QFont big = (*value)->font();
    big.setPointSizeF(big.pointSizeF() * 2);
    big.setBold(true);
    (*value)->setFont(big);
    auto* layout = new QVBoxLayout(frame);
    layout->addWidget(caption);
    layout->addWidget(*value);
    return frame;
}

void DashboardPage::showServer()
{
    const ServerStats& server = m_sampler->server();
    const QLocale locale;
    m_ops->setText(locale.toString(server.opsPerSec));
    m_memory->setText(locale.formattedDataSize(server.usedMemory));
    m_clients->setText(locale.toString(server.connectedClients));
}

void DashboardPage::showScanSummary()
{
    if (!m_sampler->hasScanned()) {
        m_status->setText(tr("Scanning subjects…"));
        return;
    }
    m_bans->setText(QLocale().toString(m_sampler->userWideBans()));
    const QLocale locale;
    QString text = tr("Last scan: %1 keys, %2 subjects banned, denied or warned")
                       .arg(locale.toString(m_sampler->scannedKeys()),
                            locale.toString(m_sampler->nearLimitTotal()));
    if (m_sampler->nearLimitTotal() > qint64(m_sampler->nearLimit().size()))
        text += tr(" (the worst %1 listed)")
                    .arg(locale.toString(qint64(m_sampler->nearLimit().size())));
    if (!m_sampler->scanComplete())
        text += tr(". The scan stopped at %1 keys: these figures are a sample, the Subjects page "
                   "has every subject.")
                    .arg(locale.toString(m_sampler->options().maxScanKeys));
    m_status->setText(text);
}

void DashboardPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    m_sampler->setActive(true);
}

void DashboardPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_sampler->setActive(false);
}

} // namespace tollgate::ui
