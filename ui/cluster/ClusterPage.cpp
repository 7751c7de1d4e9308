#include "ui/cluster/ClusterPage.h"

#include "ui/cluster/ClusterMonitor.h"
#include "ui/cluster/ClusterNodesModel.h"
#include "ui/cluster/ClusterText.h"
#include "ui/cluster/PoolRows.h"
#include "ui/cluster/SentinelRows.h"
#include "ui/common/Palette.h"
#include "ui/common/Session.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

ClusterPage::ClusterPage(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_monitor(new ClusterMonitor(session, this)),
      m_model(new ClusterNodesModel(this)), m_view(new QTableView(this)),
      m_summary(new QLabel(this)), m_user(new QLineEdit(this)), m_location(new QLabel(this)),
      m_status(new QLabel(this)), m_poll(new QTimer(this))
{
    setObjectName(QStringLiteral("clusterPage"));
    m_model->setObjectName(QStringLiteral("clusterNodesModel"));
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setText(tr("Reading the topology\u2026"));
    QFont bigger = m_summary->font();
    bigger.setPointSizeF(bigger.pointSizeF() * 1.1);
    bigger.setBold(true);
    m_summary->setFont(bigger);

    m_view->setObjectName(QStringLiteral("nodesTableView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(ClusterNodesModel::SlotsColumn,
                                                     QHeaderView::Stretch);

    m_user->setObjectName(QStringLiteral("userLineEdit"));
    m_user->setPlaceholderText(tr("a user id, e.g. alice"));
    m_user->setClearButtonEnabled(true);
    m_user->setMaximumWidth(360);
    m_location->setObjectName(QStringLiteral("userLocationLabel"));
    m_location->setWordWrap(true);
    m_location->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setWordWrap(true);
    auto* refreshButton = new QPushButton(tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("refreshButton"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(refreshButton, 0, Qt::AlignTop);
    auto* lookup = new QGroupBox(tr("Which node holds a user"), this);
    lookup->setObjectName(QStringLiteral("lookupGroupBox"));
    auto* userLabel = new QLabel(tr("&User id:"), lookup);
    userLabel->setBuddy(m_user);
    auto* userRow = new QHBoxLayout;
    userRow->addWidget(userLabel);
    userRow->addWidget(m_user, 1);
    userRow->addStretch(1);
    auto* lookupLayout = new QVBoxLayout(lookup);
    lookupLayout->addLayout(userRow);
    lookupLayout->addWidget(m_location);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addWidget(lookup);
    layout->addWidget(m_status);

    connect(refreshButton, &QPushButton::clicked, this, &ClusterPage::refresh);
    connect(m_user, &QLineEdit::textChanged, this, [this] {
        // The owner's row is selected, so it is easy to find among many nodes.
        const int row = m_model->rowOf(locateUser());
        if (row >= 0)
            m_view->selectRow(row);
    });
    connect(m_monitor, &ClusterMonitor::sampled, this, &ClusterPage::showSnapshot);
    connect(m_monitor, &ClusterMonitor::failed, this, &ClusterPage::showError);
    m_poll->setInterval(kRefreshMs);
    connect(m_poll, &QTimer::timeout, this, &ClusterPage::refresh);
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected && isVisible())
            refresh();
    });
}

void ClusterPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
    m_poll->start();
}

void ClusterPage::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    m_poll->stop();
}

void ClusterPage::refresh()
{
    // Skipped while the last sample still waits on a slow node: they never pile up.
    m_monitor->refresh();
}

void ClusterPage::showSnapshot(const ClusterSnapshot& snapshot)
{
    std::vector<ClusterNodeRow> rows = ClusterNodeRow::fromSnapshot(snapshot);
    bool bad = clusterHealth(snapshot.stats) != ClusterHealth::Ok && !snapshot.standalone;
    m_summary->setText(snapshot.sentinel ? sentinelSummaryText(snapshot, rows, &bad)
                       : snapshot.pool   ? poolSummaryText(snapshot, rows, &bad)
                                         : summaryText(snapshot, rows));
    QPalette palette = this->palette();
    if (bad)
        palette.setColor(QPalette::WindowText, toneColor(Tone::Denied));
    m_summary->setPalette(palette);
    m_model->setRows(std::move(rows));
    // A standalone server has no ids, primaries or slots to show; only Sentinel shows lag; a
    // pool shows each server's name in it (as the Id) and what the proxy says of it.
    for (int column : {ClusterNodesModel::IdColumn, ClusterNodesModel::PrimaryColumn,
                       ClusterNodesModel::SlotsColumn, ClusterNodesModel::SlotCountColumn})
        m_view->setColumnHidden(
            column, snapshot.standalone ||
                        (snapshot.sentinel && column != ClusterNodesModel::PrimaryColumn) ||
                        (snapshot.pool && column != ClusterNodesModel::IdColumn));
    m_view->setColumnHidden(ClusterNodesModel::LagColumn, !snapshot.sentinel);
    m_view->setColumnHidden(ClusterNodesModel::ProxyColumn, !snapshot.pool);
    // The slot ranges take the spare width on a cluster; the proxy's words on a pool.
    m_view->horizontalHeader()->setSectionResizeMode(ClusterNodesModel::ProxyColumn,
                                                     snapshot.pool ? QHeaderView::Stretch
                                                                   : QHeaderView::ResizeToContents);
    m_status->setText(tr("Updated %1, every %2 s while this page is shown.")
                          .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")))
                          .arg(kRefreshMs / 1000));
    locateUser();
    Q_EMIT refreshed();
}

void ClusterPage::showError(const Error& error)
{
    m_status->setText(
        tr("Could not read the topology: %1. Showing the last sample.").arg(error.toString()));
    Q_EMIT refreshed();
}

QString ClusterPage::locateUser()
{
    const QByteArray user = m_user->text().toUtf8();
    if (user.isEmpty()) {
        m_location->setText(tr("Type a user id to see its hash tag, slot and nodes."));
        return {};
    }
    const ClusterSnapshot& snapshot = m_monitor->last();
    const auto location = UserLocation::find(m_session->schema(), snapshot.map, user);
    if (!location) {
        m_location->setText(location.error().message);
        return {};
    }
    if (m_model->rows().empty()) {
        m_location->setText(location->where() + tr(" \u00b7 waiting for the topology"));
        return {};
    }
    if (snapshot.pool) {
        m_location->setText(tr("hash tag %1 \u00b7 the proxy picks the backend from it (its "
                               "hash and distribution); while a backend is ejected, the keys "
                               "it would hold go to another one")
                                .arg(QString::fromUtf8(location->hashTag)));
        return {};
    }
    if (snapshot.sentinel) {
        m_location->setText(tr("%1 · the primary %2 keeps every key, its replicas copy it")
                                .arg(location->where(), snapshot.sentinel->primary.text()));
        return snapshot.sentinel->primary.text();
    }
    m_location->setText(
        location->text(snapshot.standalone ? m_model->rows().front().address : QString()));
    return location->primary;
}

} // namespace tollgate::ui
