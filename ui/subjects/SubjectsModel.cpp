#include "ui/subjects/SubjectsModel.h"

#include "core/redis/Context.h"
#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"
#include "ui/common/Palette.h"
#include "ui/subjects/SubjectFigures.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFont>
#include <QThreadPool>

namespace tollgate::ui {

namespace {

constexpr qint64 kSliceMs = 4;      // GUI-thread time per slice of updates
// New rows reach the view at most this often: each announcement repaints the page (~5 ms at
// 1280x800), so at 100 ms a load spent 0.5 us of GUI CPU per subject on them alone.
constexpr qint64 kAnnounceMs = 250;
// Until the table holds this many rows, new ones are announced at once: the first screenfuls
// appear as they are read, for a few dozen repaints in all.
constexpr size_t kAnnounceAtOnceRows = 5'000;
constexpr size_t kPrefetchRows = 16; // how far ahead a slice loads the rows' index entries

qint64 steadyNow()
{
    return QDeadlineTimer::current().deadline();
}

QString untilText(qint64 untilMs)
{
    if (untilMs <= 0)
        return SubjectsModel::tr("permanently");
    return SubjectsModel::tr("until %1").arg(shortTime(untilMs));
}

// "exempt until 14:05", "override permanently": the marker of the Ban column, short enough
// for it (what the override gives is in the tooltip).
QString overrideText(const OverrideMarks::Mark& mark)
{
    const QString until = untilText(mark.untilMs);
    return mark.kind == OverrideKind::Unlimited ? SubjectsModel::tr("exempt %1").arg(until)
                                                : SubjectsModel::tr("override %1").arg(until);
}

// A banned row tells the ban's story: nothing remains until the ban ends, whatever the counter.
const BanInfo* banOf(const CompactRow& row, const RowExtra* extra)
{
    return row.has(CompactRow::Banned) && extra && extra->ban ? &*extra->ban : nullptr;
}

} // namespace

SubjectsModel::SubjectsModel(QObject* parent) : QAbstractTableModel(parent)
{
    m_slicer.setInterval(0);
    m_slicer.setSingleShot(true);
    connect(&m_slicer, &QTimer::timeout, this, &SubjectsModel::applySlice);
    m_announceDue.setSingleShot(true);
    connect(&m_announceDue, &QTimer::timeout, this, &SubjectsModel::announceAppended);
}

SubjectsModel::~SubjectsModel() = default;

int SubjectsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_order.size());
}

int SubjectsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SubjectsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        // Each figure says what it is: what Redis keeps, or what this console saw.
        if (section == Since)
            return tr("Banned: when the ban was created (\"14:05\").\nDenied: the first of this "
                      "console's reads that found the user denied, in the run of denied reads "
                      "up to now (\"seen 14:05\"); Redis keeps no such time.");
        if (section == Rate)
            return tr("Hits counted per minute at the last read: since the window began (fixed "
                      "windows), over the last window (sliding windows); \u2014 for token "
                      "buckets and when not known");
        if (section == Ban)
            return tr("The ban in force, the override that applies (exempt or other limits), "
                      "and \"shadow\" where the action's policy only reports: its \"deny\" "
                      "denies nobody");
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case User:
        return tr("User");
    case Action:
        return tr("Action");
    case Count:
        return tr("Count / limit");
    case Remaining:
        return tr("Remaining");
    case Ttl:
        return tr("Resets in");
    case Since:
        return tr("Since");
    case Rate:
        return tr("Hits/min");
    case Ban:
        return tr("Ban / override");
    default:
        return {};
    }
}

QVariant SubjectsModel::display(int storeRow, int column) const
{
    const CompactRow& row = m_store.row(storeRow);
    const RowExtra* extra = m_store.extra(storeRow);
    const qint64 now = steadyNow();
    const BanInfo* ban = banOf(row, extra);
    switch (column) {
    case User:
        return displayId(m_store.userId(storeRow));
    case Action:
        return m_store.action(storeRow).isEmpty() ? tr("(all actions)")
                                                  : displayId(m_store.action(storeRow));
    case Count:
        if (row.has(CompactRow::HasError))
            return tr("error: %1").arg(extra->error);
        if (ban)
            return tr("banned %1 by %2%3")
                .arg(untilText(ban->untilMs), displayId(ban->actor.toUtf8()),
                     row.has(CompactRow::AutoBan) ? tr(" (auto)") : QString());
        if (!row.has(CompactRow::HasPolicy))
            return m_store.action(storeRow).isEmpty() ? QString() : tr("no policy");
        if (!row.has(CompactRow::StateKnown))
            return tr("…");
        return QStringLiteral("%1 / %2").arg(countAt(row, now)).arg(row.limit);
    case Remaining:
        if (ban)
            return 0;
        return row.has(CompactRow::StateKnown)
                   ? QVariant(qMax<qint64>(0, row.limit - countAt(row, now)))
                   : QVariant();
    case Ttl:
        if (ban) // the ban's end, not the counter's
            return ban->untilMs > 0
                       ? formatCountdown(ban->untilMs - QDateTime::currentMSecsSinceEpoch())
                       : tr("never");
        if (!row.has(CompactRow::StateKnown))
            return QString();
        return formatCountdown(row.resetDeadline > 0 ? row.resetDeadline - now : 0); // "—": empty
    case Since:
        return sinceText(sinceOf(row, extra));
    case Rate:
        return rateText(rateOf(row, policyOf(storeRow), markOf(storeRow), now));
    case Ban: {
        // Banned, exempt, overridden and shadow read at a glance in one column.
        QStringList parts;
        if (const OverrideMarks::Mark* mark = markOf(storeRow))
            parts << overrideText(*mark);
        if (const QString shadow = shadowText(row); !shadow.isEmpty())
            parts << shadow;
        if (extra && extra->ban)
            parts << (extra->userWide ? tr("all actions") : tr("this action")) +
                         (extra->ban->reason.isEmpty()
                              ? QString()
                              : QStringLiteral(": ") + displayId(extra->ban->reason.toUtf8()));
        return parts.join(QStringLiteral(" · "));
    }
    default:
        return {};
    }
}

const OverrideMarks::Mark* SubjectsModel::markOf(int storeRow) const
{
    return m_marks->find(m_store.user(storeRow), m_store.action(storeRow),
                         QDateTime::currentMSecsSinceEpoch());
}

const Policy* SubjectsModel::policyOf(int storeRow) const
{
    return m_policies->find(m_store.action(storeRow));
}

const std::vector<bool>& SubjectsModel::shadowActions() const
{
    if (m_shadowActions.size() != size_t(m_store.actions().size()))
        m_shadowActions = m_policies->shadowByIndex(m_store.actions());
    return m_shadowActions;
}

// "shadow: would deny": a shadow policy's deny tier is what enforcing it would do.
QString SubjectsModel::shadowText(const CompactRow& row) const
{
    const std::vector<bool>& shadow = shadowActions();
    if (row.action >= shadow.size() || !shadow[row.action])
        return {};
    return row.tier == quint8(Tier::Deny) ? tr("shadow: would deny") : tr("shadow");
}

QVariant SubjectsModel::foreground(const CompactRow& row, const OverrideMarks::Mark* mark,
                                   int column) const
{
    // Shades from the palette: readable on a light and on a dark desktop alike.
    if ((column == Ban || column == Count) && row.has(CompactRow::Banned))
        return toneColor(Tone::Denied);
    if (column == Ban && mark) // exempt green, other limits in the palette's accent
        return mark->kind == OverrideKind::Unlimited
                   ? toneColor(Tone::Ok)
                   : QGuiApplication::palette().color(QPalette::Link);
    if (row.has(CompactRow::HasError))
        return toneColor(Tone::Warn);
    return {};
}

QVariant SubjectsModel::toolTip(int storeRow, int column) const
{
    const CompactRow& row = m_store.row(storeRow);
    const RowExtra* extra = m_store.extra(storeRow);
    if (extra && !extra->error.isEmpty())
        return extra->error;
    if (column == Since)
        return sinceToolTip(sinceOf(row, extra), !shadowText(row).isEmpty());
    if (column == Rate)
        return rateToolTip(rateOf(row, policyOf(storeRow), markOf(storeRow), steadyNow()),
                           policyOf(storeRow), row.has(CompactRow::Banned));
    QStringList lines;
    if ((column == Ban || column == Count) && extra && extra->ban)
        lines << tr("%1\nby %2 (%3), %4%5")
                     .arg(displayId(extra->ban->reason.toUtf8()),
                          displayId(extra->ban->actor.toUtf8()), extra->ban->source,
                          extra->ban->createdMs > 0
                              ? tr("since %1, ").arg(formatTime(extra->ban->createdMs))
                              : QString(),
                          extra->ban->untilMs > 0
                              ? tr("until %1").arg(formatTime(extra->ban->untilMs))
                              : tr("permanent"));
    else if (const OverrideMarks::Mark* mark = column == Ban ? markOf(storeRow) : nullptr)
        lines << tr("%1: %2\nby %3: %4")
                     .arg(overrideText(*mark), overrideWhatText(mark->kind, mark->windows),
                          displayId(mark->actor.toUtf8()), displayId(mark->reason.toUtf8()));
    if ((column == Ban || column == Count) && !shadowText(row).isEmpty())
        lines << (row.tier == quint8(Tier::Deny)
                      ? tr("Shadow policy: enforcing it would deny the next hit; it denies nobody")
                      : tr("Shadow policy: decided and counted as if enforced, never denies "
                           "nor bans"));
    if (!lines.isEmpty())
        return lines.join(QLatin1Char('\n'));
    return column == User ? display(storeRow, column) : QVariant();
}

QVariant SubjectsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int storeRow = int(m_order[size_t(index.row())]);
    const CompactRow& row = m_store.row(storeRow);
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(storeRow, column);
    case Qt::ToolTipRole:
        return toolTip(storeRow, column);
    case Qt::TextAlignmentRole:
        if (column == Remaining || column == Ttl || column == Rate)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        return foreground(row, column == Ban ? markOf(storeRow) : nullptr, column);
    case Qt::FontRole:
        if ((column == Count || column == Ban) && !shadowText(row).isEmpty()) {
            QFont italic; // a shadow row's figures are what enforcing would do
            italic.setItalic(true);
            return italic;
        }
        return {};
    case OverrideRole: {
        const OverrideMarks::Mark* mark = markOf(storeRow);
        return mark ? int(mark->kind) : -1;
    }
    case ShadowRole:
        return !shadowText(row).isEmpty();
    case SortRole:
        if (column == User)
            return m_store.userId(storeRow);
        // With the clocks of the last sort: what the worker sorted by.
        return sortKey(row, m_store.user(storeRow), m_store.extra(storeRow), column,
                       SortContext::of(m_store.actions(), *m_policies, m_marks.get(),
                                       m_sortClock.first, m_sortClock.second));
    case FractionRole:
        if (!row.has(CompactRow::StateKnown) || row.limit <= 0 || row.has(CompactRow::Banned))
            return {};
        return qBound(0.0, double(countAt(row, steadyNow())) / double(row.limit), 1.0);
    case TierRole:
        return row.has(CompactRow::StateKnown) ? int(row.tier) : -1;
    case UserIdRole:
        return m_store.userId(storeRow);
    case ActionIdRole:
        return m_store.action(storeRow);
    case BannedRole:
        return row.has(CompactRow::Banned);
    case NearLimitRole:
        return row.has(CompactRow::Near);
    case ErrorRole: {
        const RowExtra* extra = m_store.extra(storeRow);
        return extra ? extra->error : QString();
    }
    default:
        return {};
    }
}

void SubjectsModel::enqueue(std::vector<Subject> batch, quint16 pass)
{
    if (batch.empty())
        return;
    m_pending.push_back({std::move(batch), 0, pass});
    if (!m_ordering && !m_slicer.isActive())
        m_slicer.start();
}

void SubjectsModel::finishPass(quint16 pass)
{
    m_finishedPass = pass;
    if (m_pending.empty() && !m_slicer.isActive())
        m_slicer.start(); // the slicer takes it from here, after anything queued
}

void SubjectsModel::applySlice()
{
    if (m_ordering)
        return;
    if (m_snapshotOut && m_snapshotOut->load()) { // the worker is letting go of it just now
        m_slicer.start();
        return;
    }
    QElapsedTimer clock;
    clock.start();
    const qint64 now = steadyNow();
    bool updated = false;
    std::vector<quint32> appended;
    int done = 0;
    while (!m_pending.empty() && ((++done & 63) != 0 || clock.elapsed() < kSliceMs)) {
        PendingBatch& batch = m_pending.front();
        // The index entry of the row kPrefetchRows ahead starts loading now, so it is there
        // when that row's turn comes (a batch's first rows, as it starts).
        for (size_t ahead = batch.next == 0 ? 0 : batch.next + kPrefetchRows;
             ahead <= batch.next + kPrefetchRows && ahead < batch.rows.size(); ++ahead)
            m_store.prefetch(batch.rows[ahead]);
        const auto [storeRow, added] = m_store.apply(batch.rows[batch.next], now, batch.pass);
        if (++batch.next == batch.rows.size())
            m_pending.pop_front();
        if (!added) {
            updated = true;
            continue;
        }
        m_appendedSinceOrder = true;
        const CompactRow& row = m_store.row(storeRow);
        if (m_filter.isEmpty() ||
            m_filter.accepts(
                row, m_store.user(storeRow), m_store.action(storeRow),
                {m_marks.get(), QDateTime::currentMSecsSinceEpoch(), &shadowActions()}))
            appended.push_back(quint32(storeRow));
    }
    if (updated && !m_order.empty()) // the view repaints what it shows; no per-row signals
        Q_EMIT dataChanged(index(0, 0), index(int(m_order.size()) - 1, ColumnCount - 1));
    // New rows are announced at most every kAnnounceMs: each insertion makes the view
    // re-measure its rows and repaint. Announcing whenever the queue ran dry, as it does after
    // every batch while the GUI keeps up, repainted the page ~120 times a second while loading,
    // half the GUI thread's CPU; what waits is announced by a timer once it is due.
    m_unannounced.insert(m_unannounced.end(), appended.begin(), appended.end());
    if (m_order.size() < kAnnounceAtOnceRows || !m_announced.isValid() ||
        m_announced.elapsed() >= kAnnounceMs)
        announceAppended();
    else if (!m_unannounced.empty() && !m_announceDue.isActive())
        m_announceDue.start(int(kAnnounceMs - m_announced.elapsed()));
    if (done > 0)
        Q_EMIT sliceApplied();
    if (!m_pending.empty()) {
        m_slicer.start();
    } else if (m_finishedPass != 0) {
        // Rows the pass did not see leave; rows it appended move to their sorted place, the
        // others stay where the operator sees them.
        m_retirePass = std::exchange(m_finishedPass, 0);
        requestOrder(!(m_appendedSinceOrder && m_sort.column >= 0));
    }
}

void SubjectsModel::announceAppended()
{
    m_announceDue.stop();
    m_announced.start();
    if (m_unannounced.empty())
        return;
    const int first = int(m_order.size());
    beginInsertRows({}, first, first + int(m_unannounced.size()) - 1);
    m_order.insert(m_order.end(), m_unannounced.begin(), m_unannounced.end());
    m_unannounced.clear();
    endInsertRows();
}

void SubjectsModel::sort(int column, Qt::SortOrder order)
{
    m_sort = {column, order};
    requestOrder();
}

void SubjectsModel::setFilter(const SubjectFilter& filter)
{
    SubjectFilter folded = filter;
    folded.text = filter.text.toLower();
    if (folded == m_filter)
        return;
    m_filter = folded;
    requestOrder();
}

void SubjectsModel::setOverrideMarks(SharedOverrideMarks marks)
{
    if (!marks || marks == m_marks)
        return;
    const bool wasEmpty = m_marks->isEmpty();
    m_marks = std::move(marks);
    if (m_filter.state == SubjectFilter::State::Overridden ||
        m_filter.state == SubjectFilter::State::Exempt)
        requestOrder();
    // One whole-range signal; the view repaints only what it shows.
    if (!m_order.empty() && !(wasEmpty && m_marks->isEmpty()))
        Q_EMIT dataChanged(index(0, Ban), index(int(m_order.size()) - 1, Ban));
}

void SubjectsModel::setPolicies(SharedActionPolicies policies)
{
    if (!policies || policies == m_policies)
        return;
    // Each pass brings a listing: only a change of which actions are shadow filters again
    // (the rates' windows repaint with the ticker).
    const std::vector<bool> before = shadowActions();
    m_policies = std::move(policies);
    m_shadowActions.clear(); // rebuilt for the new policies at the next look
    if (shadowActions() == before)
        return;
    using State = SubjectFilter::State;
    if (m_filter.state == State::Denied || m_filter.state == State::Shadow ||
        m_filter.state == State::WouldDeny)
        requestOrder();
    // Marks of the rows shown: one whole-range signal, the view repaints what it shows.
    if (!m_order.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_order.size()) - 1, ColumnCount - 1));
}

qint64 SubjectsModel::wouldDenyCount() const
{
    const std::vector<qint64>& denied = m_store.totals().deniedByAction;
    const std::vector<bool>& shadow = shadowActions();
    qint64 count = 0;
    for (size_t i = 0; i < denied.size() && i < shadow.size(); ++i)
        count += shadow[i] ? denied[i] : 0;
    return count;
}

void SubjectsModel::requestOrder(bool keepOrder)
{
    if (m_ordering) {
        m_orderAgain = true;
        return;
    }
    announceAppended(); // a kept order must hold them, a new one holds them anyway
    m_ordering = true;
    m_orderAgain = false;
    OrderRequest request{m_filter, m_sort,     std::exchange(m_retirePass, 0),      std::nullopt,
                         m_marks,  m_policies, QDateTime::currentMSecsSinceEpoch(), steadyNow()};
    m_requestClock = {request.steadyNowMs, request.nowMs};
    m_requestKeeps = keepOrder;
    if (keepOrder)
        request.keep = m_order; // one copy of 4 bytes a row, no per-row work
    else
        m_appendedSinceOrder = false;
    const quint64 generation = ++m_generation;
    const Context self(this); // on the GUI thread, where the result must land
    // Writing to the store while the worker still holds its snapshot would copy every row.
    m_snapshotOut = std::make_shared<std::atomic<bool>>(true);
    auto run = [self, generation, snapshot = m_store.snapshot(), request = std::move(request),
                out = m_snapshotOut, model = this]() mutable {
        RowOrder order;
        {
            const StoreSnapshot mine = std::move(snapshot);
            order = computeOrder(mine, request);
        } // released here, on the worker, before the GUI thread writes again
        out->store(false);
        self.post([model, generation, order = std::move(order)]() mutable {
            model->applyOrder(generation, std::move(order));
        });
    };
    QThreadPool::globalInstance()->start(std::function<void()>(std::move(run)));
}

void SubjectsModel::applyOrder(quint64 generation, RowOrder order)
{
    if (generation != m_generation)
        return;
    m_ordering = false;
    if (!m_requestKeeps)
        m_sortClock = m_requestClock;
    m_store.retire(order.retired);
    if (!order.retired.empty() || order.rows != m_order) {
        // One layout change, whatever moved, left or came back: persistent indexes (the
        // selection, the current row) follow their rows through the precomputed map.
        Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        const QModelIndexList before = persistentIndexList();
        QModelIndexList after;
        after.reserve(before.size());
        for (const QModelIndex& old : before) {
            const quint32 storeRow = m_order[size_t(old.row())];
            const qint32 row = order.viewRowOf[storeRow];
            after << (row < 0 ? QModelIndex() : index(row, old.column()));
        }
        m_order = std::move(order.rows);
        changePersistentIndexList(before, after);
        Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    }
    Q_EMIT orderApplied();
    if (m_orderAgain)
        requestOrder();
    else if (!m_pending.empty() || m_finishedPass != 0)
        m_slicer.start();
}

void SubjectsModel::clear()
{
    beginResetModel();
    m_store.clear();
    m_order.clear();
    m_unannounced.clear();
    m_announceDue.stop();
    m_pending.clear();
    ++m_generation; // a sort in flight is for rows that are gone
    m_ordering = false;
    m_orderAgain = false;
    m_finishedPass = 0;
    m_retirePass = 0;
    endResetModel();
}

void SubjectsModel::reserve(qint64 rows)
{
    if (m_ordering)
        return; // a snapshot is out: growing now would copy it
    m_store.reserve(rows);
    m_order.reserve(size_t(rows));
}

int SubjectsModel::viewRowOf(const QByteArray& user, const QByteArray& action) const
{
    const int storeRow = m_store.find(user, action);
    if (storeRow < 0)
        return -1;
    const auto it = std::find(m_order.begin(), m_order.end(), quint32(storeRow));
    return it == m_order.end() ? -1 : int(it - m_order.begin());
}

QByteArray SubjectsModel::userAt(int viewRow) const
{
    return m_store.userId(int(m_order[size_t(viewRow)]));
}

SubjectKey SubjectsModel::keyAt(int viewRow) const
{
    const int storeRow = int(m_order[size_t(viewRow)]);
    return {m_store.userId(storeRow), m_store.action(storeRow)};
}

qint64 SubjectsModel::resetDeadlineAt(int viewRow) const
{
    return m_store.row(int(m_order[size_t(viewRow)])).resetDeadline;
}

} // namespace tollgate::ui
