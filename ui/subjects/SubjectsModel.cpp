#include "ui/subjects/SubjectsModel.h"

#include "core/redis/Context.h"
#include "ui/common/DisplayText.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QThreadPool>

namespace tollgate::ui {

namespace {

constexpr qint64 kSliceMs = 4; // GUI-thread time per slice of updates

qint64 steadyNow()
{
    return QDeadlineTimer::current().deadline();
}

// A fixed window whose deadline passed holds nothing any more, without asking Redis.
qint64 countNow(const CompactRow& row, qint64 now)
{
    return row.resetDeadline > 0 && row.resetDeadline <= now ? 0 : row.count;
}

QString untilText(qint64 untilMs)
{
    if (untilMs <= 0)
        return SubjectsModel::tr("permanently");
    const QDateTime until = QDateTime::fromMSecsSinceEpoch(untilMs);
    const bool today = until.date() == QDate::currentDate();
    return SubjectsModel::tr("until %1")
        .arg(until.toString(today ? QStringLiteral("HH:mm") : QStringLiteral("yyyy-MM-dd HH:mm")));
}

} // namespace

SubjectsModel::SubjectsModel(QObject* parent) : QAbstractTableModel(parent)
{
    m_slicer.setInterval(0);
    m_slicer.setSingleShot(true);
    connect(&m_slicer, &QTimer::timeout, this, &SubjectsModel::applySlice);
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
    case Ban:
        return tr("Ban");
    default:
        return {};
    }
}

QVariant SubjectsModel::display(int storeRow, int column) const
{
    const CompactRow& row = m_store.row(storeRow);
    const RowExtra* extra = m_store.extra(storeRow);
    const qint64 now = steadyNow();
    switch (column) {
    case User:
        return displayId(m_store.userId(storeRow));
    case Action:
        return m_store.action(storeRow).isEmpty() ? tr("(all actions)")
                                                  : displayId(m_store.action(storeRow));
    case Count:
        if (row.has(CompactRow::HasError))
            return tr("error: %1").arg(extra->error);
        if (row.has(CompactRow::Banned) && extra && extra->ban)
            return tr("banned %1 by %2%3")
                .arg(untilText(extra->ban->untilMs), displayId(extra->ban->actor.toUtf8()),
                     row.has(CompactRow::AutoBan) ? tr(" (auto)") : QString());
        if (!row.has(CompactRow::HasPolicy))
            return m_store.action(storeRow).isEmpty() ? QString() : tr("no policy");
        if (!row.has(CompactRow::StateKnown))
            return tr("…");
        return QStringLiteral("%1 / %2").arg(countNow(row, now)).arg(row.limit);
    case Remaining:
        return row.has(CompactRow::StateKnown)
                   ? QVariant(qMax<qint64>(0, row.limit - countNow(row, now)))
                   : QVariant();
    case Ttl:
        return row.has(CompactRow::StateKnown) && row.resetDeadline > 0
                   ? formatCountdown(row.resetDeadline - now)
                   : QString();
    case Ban:
        if (!extra || !extra->ban)
            return QString();
        return QString((extra->userWide ? tr("all actions") : tr("this action")) +
                       (extra->ban->reason.isEmpty()
                            ? QString()
                            : QStringLiteral(": ") + displayId(extra->ban->reason.toUtf8())));
    default:
        return {};
    }
}

QVariant SubjectsModel::sortValue(int storeRow, int column) const
{
    const CompactRow& row = m_store.row(storeRow);
    const bool known = row.has(CompactRow::StateKnown);
    switch (column) {
    case Count:
        return known && row.limit > 0 ? double(row.count) / double(row.limit) : -1.0;
    case Remaining:
        return known ? row.remaining() : qint64(-1);
    case Ttl: // ms left; the off-thread sort orders by the deadline itself, which agrees
        return row.resetDeadline > 0 ? qMax<qint64>(0, row.resetDeadline - steadyNow()) : 0;
    case Ban: {
        const RowExtra* extra = m_store.extra(storeRow);
        return !extra || !extra->ban      ? qint64(-1)
               : extra->ban->untilMs == 0 ? qint64(1e18)
                                          : extra->ban->untilMs;
    }
    default:
        return display(storeRow, column);
    }
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
    case Qt::ToolTipRole: {
        const RowExtra* extra = m_store.extra(storeRow);
        if (extra && !extra->error.isEmpty())
            return extra->error;
        if ((column == Ban || column == Count) && extra && extra->ban)
            return tr("%1\nby %2 (%3), %4")
                .arg(displayId(extra->ban->reason.toUtf8()), displayId(extra->ban->actor.toUtf8()),
                     extra->ban->source,
                     extra->ban->untilMs > 0 ? tr("until %1").arg(formatTime(extra->ban->untilMs))
                                             : tr("permanent"));
        return column == User ? display(storeRow, column) : QVariant();
    }
    case Qt::TextAlignmentRole:
        if (column == Remaining || column == Ttl)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if ((column == Ban || column == Count) && row.has(CompactRow::Banned))
            return QBrush(QColor(0xb0, 0x00, 0x20));
        if (row.has(CompactRow::HasError))
            return QBrush(QColor(0xb0, 0x60, 0x00));
        return {};
    case SortRole:
        return sortValue(storeRow, column);
    case FractionRole:
        if (!row.has(CompactRow::StateKnown) || row.limit <= 0 || row.has(CompactRow::Banned))
            return {};
        return qBound(0.0, double(countNow(row, steadyNow())) / double(row.limit), 1.0);
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

void SubjectsModel::enqueue(std::vector<Subject> batch)
{
    std::move(batch.begin(), batch.end(), std::back_inserter(m_pending));
    if (!m_ordering && !m_slicer.isActive())
        m_slicer.start();
}

void SubjectsModel::applySlice()
{
    if (m_ordering || m_pending.empty())
        return;
    QElapsedTimer clock;
    clock.start();
    const qint64 now = steadyNow();
    bool updated = false;
    std::vector<quint32> appended;
    int done = 0;
    while (!m_pending.empty() && ((++done & 63) != 0 || clock.elapsed() < kSliceMs)) {
        const auto [storeRow, added] = m_store.apply(m_pending.front(), now);
        m_pending.pop_front();
        if (!added) {
            updated = true;
            continue;
        }
        m_appendedSinceOrder = true;
        const CompactRow& row = m_store.row(storeRow);
        if (m_filter.isEmpty() ||
            m_filter.accepts(row, m_store.user(storeRow), m_store.action(storeRow)))
            appended.push_back(quint32(storeRow));
    }
    if (updated && !m_order.empty()) // the view repaints what it shows; no per-row signals
        Q_EMIT dataChanged(index(0, 0), index(int(m_order.size()) - 1, ColumnCount - 1));
    if (!appended.empty()) {
        const int first = int(m_order.size());
        beginInsertRows({}, first, first + int(appended.size()) - 1);
        m_order.insert(m_order.end(), appended.begin(), appended.end());
        endInsertRows();
    }
    Q_EMIT sliceApplied();
    if (!m_pending.empty()) {
        m_slicer.start();
    } else if (m_resortWhenApplied) {
        m_resortWhenApplied = false;
        requestOrder();
    }
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

void SubjectsModel::resort()
{
    if (!m_pending.empty()) { // after the queued rows are in, so they are sorted too
        m_resortWhenApplied = true;
        return;
    }
    requestOrder();
}

void SubjectsModel::requestOrder()
{
    if (m_ordering) {
        m_orderAgain = true;
        return;
    }
    m_ordering = true;
    m_orderAgain = false;
    m_appendedSinceOrder = false;
    const quint64 generation = ++m_generation;
    const Context self(this); // on the GUI thread, where the result must land
    auto run = [self, generation, snapshot = m_store.snapshot(), filter = m_filter, sort = m_sort,
                model = this]() mutable {
        RowOrder order;
        {
            const StoreSnapshot mine = std::move(snapshot);
            order = computeOrder(mine, filter, sort);
        } // released here, on the worker, before the GUI thread writes again
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
    if (order.rows.size() != m_order.size()) {
        beginResetModel();
        m_order = std::move(order.rows);
        endResetModel();
    } else {
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
    else if (!m_pending.empty())
        m_slicer.start();
}

void SubjectsModel::clear()
{
    beginResetModel();
    m_store.clear();
    m_order.clear();
    m_pending.clear();
    ++m_generation; // a sort in flight is for rows that are gone
    m_ordering = false;
    m_orderAgain = false;
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

} // namespace tollgate::ui
