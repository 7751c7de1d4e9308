#include "ui/dashboard/DashboardPage.h"

#include "ui/common/Session.h"
#include "ui/common/StaleMark.h"
#include "ui/dashboard/BanCounter.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/DashboardTables.h"
#include "ui/dashboard/NearLimitFilter.h"
#include "ui/dashboard/NearLimitSweep.h"
#include "ui/dashboard/RateChart.h"
#include "ui/dashboard/StatsSampler.h"

#include <QChart>
#include <QLegend>

#include <QButtonGroup>
#include <QCheckBox>
#include <QDateTime>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QResizeEvent>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <tuple>

namespace tollgate::ui {

namespace {

// The widest value each numeric column usually shows: the widths stay as they are while
// the figures change.
const QString kRateSample = QStringLiteral("8,888.8");
const QString kCountSample = QStringLiteral("888,888");
// The least a user or action column is given: a few characters, the rest elided.
constexpr int kIdMinimumWidth = 64;

QMap<int, QString> actionSamples()
{
    return {{ActionStatsModel::HitsPerSec, kRateSample},
            {ActionStatsModel::DenialsPerSec, kRateSample},
            {ActionStatsModel::WouldDenyPerSec, kRateSample},
            {ActionStatsModel::WarnsPerSec, kRateSample},
            {ActionStatsModel::ActiveBans, kCountSample}};
}

QMap<int, QString> nearLimitSamples()
{
    return {{NearLimitModel::Tier, tierName(Tier::Banned)},
            {NearLimitModel::Count, QStringLiteral("888 / 888")},
            {NearLimitModel::Remaining, kCountSample},
            {NearLimitModel::Since, QLocale().toString(QTime(22, 58, 58), QLocale::ShortFormat)},
            {NearLimitModel::Rate, kRateSample}};
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
      m_nearLimitFilter(new NearLimitFilter(this)),
      m_hitsChart(new RateChart(tr("Hits"), m_actions, &ActionStats::hits, this)),
      m_denialsChart(new RateChart(tr("Denials"), m_actions, &ActionStats::denials, this)),
      m_status(new QLabel(this)),
      m_actionsView(makeDashboardTable(m_actions, QStringLiteral("actionStatsTableView"), this)),
      m_nearLimitView(
          makeDashboardTable(m_nearLimitFilter, QStringLiteral("nearLimitTableView"), this))
{
    setObjectName(QStringLiteral("dashboardPage"));
    m_hitsChart->setObjectName(QStringLiteral("hitsChartView"));
    m_denialsChart->setObjectName(QStringLiteral("denialsChartView"));
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true); // long figures never widen the window
    m_status->setToolTip(
        tr("Bans are counted from the ban keys alone (a paced SCAN, no subject is read), then "
           "kept current by ban and unban events and each ban's end; a ban from a client that "
           "publishes no event counts from the next pass. The near-limit list comes from a "
           "sweep of every subject paced to a few thousand commands a second, so at a million "
           "subjects a pass takes minutes; subjects named by events are read at once."));

    auto* tiles = new QHBoxLayout;
    tiles->addWidget(tile(tr("Server ops/s"), QStringLiteral("ops"), &m_ops));
    tiles->addWidget(tile(tr("Memory used"), QStringLiteral("memory"), &m_memory));
    tiles->addWidget(tile(tr("Clients"), QStringLiteral("clients"), &m_clients));
    QWidget* bans = tile(tr("Active bans"), QStringLiteral("bans"), &m_bans);
    m_banScopes = new QLabel(bans);
    m_banScopes->setObjectName(QStringLiteral("banScopesLabel"));
    static_cast<QVBoxLayout*>(bans->layout())->insertWidget(2, m_banScopes);
    tiles->addWidget(bans);

    // One legend for both (same colours per action), so at 1024 px each chart keeps half the
    // width; a click in it hides the action in both.
    m_denialsChart->chart()->legend()->hide();
    // Shadow policies deny nobody: what enforcing them would deny is drawn dotted beside.
    m_denialsChart->setShadowRate(&ActionStats::wouldDenials);
    connect(m_hitsChart, &RateChart::actionVisibilityChanged, m_denialsChart,
            &RateChart::setActionVisible);
    // 5 min per second, 1 h and 24 h per minute (stats.lua's history in Redis).
    auto* ranges = new QHBoxLayout;
    ranges->addWidget(new QLabel(tr("Charts over:"), this));
    m_rangeButtons = new QButtonGroup(this);
    for (const auto& [range, text, name] :
         {std::tuple{ChartRange::FiveMinutes, tr("5 min"), "fiveMinutesButton"},
          std::tuple{ChartRange::Hour, tr("1 h"), "hourButton"},
          std::tuple{ChartRange::Day, tr("24 h"), "dayButton"}}) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setObjectName(QLatin1String(name));
        button->setCheckable(true);
        button->setChecked(range == ChartRange::FiveMinutes);
        m_rangeButtons->addButton(button, int(range));
        ranges->addWidget(button);
    }
    ranges->addStretch(1);
    connect(m_rangeButtons, &QButtonGroup::idClicked, this,
            [this](int id) { setRange(ChartRange(id)); });

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

    m_nearLimitFilter->setSourceModel(m_nearLimit);
    m_nearLimitView->setSortingEnabled(true);
    m_nearLimitView->sortByColumn(NearLimitModel::Rate, Qt::DescendingOrder);
    auto* deniedOnly = new QCheckBox(tr("Denied &now"), this);
    deniedOnly->setObjectName(QStringLiteral("deniedNowCheckBox"));
    deniedOnly->setToolTip(tr("Only the rows whose next hit is refused: banned, or denied by an "
                              "enforced policy"));
    connect(deniedOnly, &QCheckBox::toggled, m_nearLimitFilter, &NearLimitFilter::setDeniedOnly);
    auto* nearLimitTitle = new QHBoxLayout;
    nearLimitTitle->addWidget(sectionTitle(tr("Near or over the limit"), this));
    nearLimitTitle->addStretch(1);
    nearLimitTitle->addWidget(deniedOnly);
    m_tables = new QGridLayout;
    m_tables->addWidget(sectionTitle(tr("Actions: now and active bans"), this), 0, 0);
    m_tables->addLayout(nearLimitTitle, 0, 1);
    m_tables->addWidget(m_actionsView, 1, 0);
    m_tables->addWidget(m_nearLimitView, 1, 1);
    for (const auto& [view, column] : optionalColumns())
        view->setColumnHidden(column, true); // until the page is seen to have the room
    fixColumns();

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(tiles);
    layout->addLayout(ranges);
    layout->addLayout(charts, 3);
    layout->addLayout(m_tables, 2);
    layout->addWidget(m_status);

    connect(m_sampler, &StatsSampler::actionsUpdated, this, [this] {
        m_actions->setActions(m_sampler->actions());
        // The would-deny column only while a shadow policy exists: the table stays narrow.
        const auto& rows = m_actions->rows();
        const bool shadow = std::any_of(rows.begin(), rows.end(),
                                        [](const ActionStats& row) { return row.shadow; });
        if (m_actionsView->isColumnHidden(ActionStatsModel::WouldDenyPerSec) == shadow) {
            m_actionsView->setColumnHidden(ActionStatsModel::WouldDenyPerSec, !shadow);
            fixColumns();
        }
        const bool empty = m_sampler->actions().empty();
        m_guide->setVisible(empty);
        m_hitsChart->setVisible(!empty);
        m_denialsChart->setVisible(!empty);
        showScanSummary(); // replaces an error shown by an earlier failed sample
    });
    connect(m_sampler, &StatsSampler::nearLimitUpdated, this, [this] {
        m_nearLimit->setEntries(m_sampler->nearLimit());
        showScanSummary();
    });
    connect(m_sampler, &StatsSampler::serverUpdated, this, &DashboardPage::showServer);
    // A row opens its user: activated is Enter, and a double-click on every platform's style.
    connect(m_nearLimitView, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QModelIndex source = m_nearLimitFilter->mapToSource(index);
        if (source.isValid() && source.row() < int(m_nearLimit->rows().size()))
            Q_EMIT userRequested(m_nearLimit->rows()[size_t(source.row())].user);
    });
    m_nearLimitView->setToolTip(tr("Double-click or Enter opens the user"));
    connect(m_sampler, &StatsSampler::failed, this, [this](const Error& error) {
        if (m_session->isResponsive()) // else the stale note says more than "timeout"
            m_status->setText(tr("Could not sample: %1").arg(error.toString()));
    });
    // A stalled Redis leaves the last figures on screen: greyed, and said so.
    markStaleWhileUnresponsive(session, {this});
    connect(session, &Session::responsivenessChanged, this, [this](bool responsive) {
        if (responsive)
            showScanSummary();
        else
            m_status->setText(tr("Stale since %1: %2; the figures shown are the last it gave.")
                                  .arg(QLocale().toString(m_session->unresponsiveSince().time(),
                                                          QStringLiteral("HH:mm:ss")),
                                       m_session->notRespondingText()));
    });
}

std::vector<std::pair<QTableView*, int>> DashboardPage::optionalColumns() const
{
    return {{m_actionsView, ActionStatsModel::WarnsPerSec},
            {m_nearLimitView, NearLimitModel::Count}};
}

void DashboardPage::fixColumns()
{
    fixColumnWidths(m_actionsView, {ActionStatsModel::Action}, actionSamples(), kIdMinimumWidth);
    fixColumnWidths(m_nearLimitView, {NearLimitModel::User, NearLimitModel::Action},
                    nearLimitSamples(), kIdMinimumWidth);
    // The width left over goes to the tables in proportion to what they need, which does not
    // change with the data: their widths stay put.
    m_tables->setColumnStretch(0, m_actionsView->minimumWidth());
    m_tables->setColumnStretch(1, m_nearLimitView->minimumWidth());
}

void DashboardPage::showOptionalColumnsIfRoom()
{
    int hidden = 0; // what the optional columns would add, while hidden
    for (const auto& [view, column] : optionalColumns())
        if (view->isColumnHidden(column))
            hidden += fixedColumnWidth(view, column,
                                       view == m_actionsView ? actionSamples().value(column)
                                                             : nearLimitSamples().value(column));
    const QMargins margins = layout()->contentsMargins();
    const int everything = m_actionsView->minimumWidth() + m_nearLimitView->minimumWidth() +
                           hidden + m_tables->horizontalSpacing() + margins.left() +
                           margins.right();
    const bool room = width() >= everything;
    if (m_nearLimitView->isColumnHidden(NearLimitModel::Count) != room)
        return;
    for (const auto& [view, column] : optionalColumns())
        view->setColumnHidden(column, !room);
    fixColumns();
}

void DashboardPage::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    showOptionalColumnsIfRoom();
}

void DashboardPage::setRange(ChartRange range)
{
    if (QAbstractButton* button = m_rangeButtons->button(int(range)))
        button->setChecked(true);
    m_hitsChart->setRange(range);
    m_denialsChart->setRange(range);
    m_sampler->setRange(range);
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
    layout->addStretch(1); // the values in line, whatever a tile has below
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
    const QLocale locale;
    const auto time = [&locale](const QDateTime& when) {
        return locale.toString(when.time(), QLocale::ShortFormat);
    };
    BanCounter* bans = m_sampler->banCounter();
    NearLimitSweep* sweep = m_sampler->sweep();
    QString text;
    if (bans->hasPass()) {
        const BanTotals totals = m_sampler->banTotals();
        m_bans->setText(locale.toString(totals.total()));
        m_banScopes->setText(
            tr("%1 user-wide, %2 per action")
                .arg(locale.toString(totals.userWide), locale.toString(totals.perAction)));
        text = tr("Active bans: every ban key counted at %1, then kept by events and ban ends.")
                   .arg(time(bans->lastFinished()));
    } else {
        text = tr("Counting the ban keys…");
    }
    text += QLatin1Char(' ');
    const QString listed = m_sampler->nearLimit().size() < size_t(sweep->total())
                               ? tr(" (the fastest %1 listed)")
                                     .arg(locale.toString(qint64(m_sampler->nearLimit().size())))
                               : QString();
    if (sweep->hasCompletePass())
        text += tr("Near or over the limit: %1 of %2 subjects in the sweep that ended at %3 "
                   "(%4 s)%5.")
                    .arg(locale.toString(sweep->total()), locale.toString(sweep->lastSubjects()),
                         time(sweep->lastFinished()),
                         locale.toString(qMax<qint64>(1, sweep->lastDurationMs() / 1000)), listed);
    else
        text += tr("Near or over the limit: first sweep of every subject, %1 so far in %2 keys%3.")
                    .arg(locale.toString(sweep->total()),
                         locale.toString(qMax<qint64>(0, sweep->runningScanned())), listed);
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
