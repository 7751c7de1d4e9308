#include "ui/subjects/SubjectsModel.h"

#include "ui/common/DisplayText.h"

#include <QBrush>
#include <QColor>
#include <QDeadlineTimer>
#include <QSet>

namespace tollgate::ui {

namespace {

qint64 ttlLeft(const SubjectRow& row, qint64 now)
{
    return row.stateKnown && row.state.resetMs > 0 ? qMax<qint64>(0, row.resetDeadline - now) : 0;
}

QString banText(const SubjectRow& row)
{
    const BanInfo& ban = row.ban ? *row.ban : *row.userBan;
    QString scope = row.ban ? QString() : SubjectsModel::tr(" (all actions)");
    QString text = SubjectsModel::tr("banned") + scope;
    if (!ban.reason.isEmpty())
        text += QStringLiteral(": ") + displayId(ban.reason.toUtf8());
    return text;
}

} // namespace

SubjectsModel::SubjectsModel(QObject* parent) : QAbstractTableModel(parent) {}

int SubjectsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
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

QVariant SubjectsModel::display(const SubjectRow& row, int column) const
{
    switch (column) {
    case User:
        return displayId(row.user);
    case Action:
        return row.action.isEmpty() ? tr("(all actions)") : displayId(row.action);
    case Count:
        if (!row.error.isEmpty())
            return tr("error: %1").arg(row.error);
        if (!row.hasPolicy)
            return row.action.isEmpty() ? QString() : tr("no policy");
        if (!row.stateKnown)
            return tr("…");
        return QStringLiteral("%1 / %2").arg(row.state.count).arg(row.state.limit);
    case Remaining:
        return row.stateKnown ? QVariant(row.state.remaining) : QVariant();
    case Ttl:
        return row.stateKnown ? formatCountdown(ttlLeft(row, QDeadlineTimer::current().deadline()))
                              : QString();
    case Ban:
        return row.banned() ? banText(row) : QString();
    default:
        return {};
    }
}

QVariant SubjectsModel::sortValue(const SubjectRow& row, int column) const
{
    switch (column) {
    case Count:
        return row.stateKnown && row.state.limit > 0
                   ? double(row.state.count) / double(row.state.limit)
                   : -1.0;
    case Remaining:
        return row.stateKnown ? row.state.remaining : qint64(-1);
    case Ttl:
        return ttlLeft(row, QDeadlineTimer::current().deadline());
    case Ban:
        return row.banned() ? banText(row) : QString();
    default:
        return display(row, column);
    }
}

QVariant SubjectsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SubjectRow& row = m_rows[size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(row, column);
    case Qt::ToolTipRole:
        if (column == Ban && row.banned()) {
            const BanInfo& ban = row.ban ? *row.ban : *row.userBan;
            return tr("%1\nby %2 (%3)\n%4")
                .arg(banText(row), ban.actor, ban.source,
                     ban.untilMs > 0 ? tr("until %1").arg(formatTime(ban.untilMs))
                                     : tr("permanent"));
        }
        return column == User ? display(row, column) : QVariant();
    case Qt::TextAlignmentRole:
        if (column == Count || column == Remaining || column == Ttl)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (column == Ban && row.banned())
            return QBrush(QColor(0xb0, 0x00, 0x20));
        return {};
    case SortRole:
        return sortValue(row, column);
    case FractionRole:
        if (!row.stateKnown || row.state.limit <= 0)
            return {};
        return qBound(0.0, double(row.state.count) / double(row.state.limit), 1.0);
    case TierRole:
        return row.stateKnown ? int(row.state.tier) : -1;
    case UserIdRole:
        return row.user;
    case ActionIdRole:
        return row.action;
    case BannedRole:
        return row.banned();
    case NearLimitRole:
        return row.nearLimit();
    default:
        return {};
    }
}

void SubjectsModel::reindex()
{
    m_index.clear();
    m_index.reserve(qsizetype(m_rows.size()));
    for (int i = 0; i < int(m_rows.size()); ++i)
        m_index.insert(m_rows[size_t(i)].key(), i);
}

void SubjectsModel::merge(const std::vector<SubjectRow>& rows)
{
    std::vector<SubjectRow> added;
    for (const SubjectRow& row : rows) {
        const int at = m_index.value(row.key(), -1);
        if (at >= 0)
            m_rows[size_t(at)] = row;
        else
            added.push_back(row);
    }
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
    if (added.empty())
        return;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(added.size()) - 1);
    for (SubjectRow& row : added) {
        m_index.insert(row.key(), int(m_rows.size()));
        m_rows.push_back(std::move(row));
    }
    endInsertRows();
}

void SubjectsModel::update(const std::vector<SubjectRow>& rows)
{
    merge(rows);
}

void SubjectsModel::replace(const std::vector<SubjectRow>& rows)
{
    QSet<SubjectKey> keep;
    keep.reserve(qsizetype(rows.size()));
    for (const SubjectRow& row : rows)
        keep.insert(row.key());
    // Remove gone rows as contiguous runs, from the end so earlier indexes stay valid.
    int last = int(m_rows.size()) - 1;
    bool removed = false;
    while (last >= 0) {
        if (keep.contains(m_rows[size_t(last)].key())) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && !keep.contains(m_rows[size_t(first - 1)].key()))
            --first;
        beginRemoveRows({}, first, last);
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + last + 1);
        endRemoveRows();
        removed = true;
        last = first - 1;
    }
    if (removed)
        reindex();
    merge(rows);
}

SubjectsModel::Summary SubjectsModel::summary() const
{
    Summary summary;
    summary.subjects = int(m_rows.size());
    for (const SubjectRow& row : m_rows) {
        summary.banned += row.banned() ? 1 : 0;
        summary.nearLimit += row.nearLimit() ? 1 : 0;
    }
    return summary;
}

} // namespace tollgate::ui
