#include "ui/dashboard/DashboardModels.h"

#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"
#include "ui/common/RowRoles.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>
#include <QLocale>
#include <QStringDecoder>

namespace tollgate::ui {

namespace {

// A banned row has nothing left, whatever its counter says.
qint64 remainingOf(const NearLimitEntry& row)
{
    return row.state.tier == tollgate::Tier::Banned ? 0 : row.state.remaining;
}

} // namespace

void ActionStatsModel::setActions(std::vector<ActionStats> actions)
{
    replaceRows(std::move(actions));
}

int ActionStatsModel::rowOf(const QByteArray& action) const
{
    for (size_t row = 0; row < m_rows.size(); ++row)
        if (m_rows[row].action == action)
            return int(row);
    return -1;
}

int ActionStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActionStatsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ActionStats& row = m_rows[size_t(index.row())];
    if (role == Qt::TextAlignmentRole && index.column() != Action)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && row.shadow && index.column() == Action)
        return QBrush(toneColor(Tone::Warn));
    if (role == Qt::ToolTipRole && row.shadow && index.column() == Action)
        return tr("%1: shadow policy, counts and reports but never denies or bans")
            .arg(displayId(row.action));
    if (role == Qt::ToolTipRole && row.shadow && index.column() == ActiveBans)
        return tr("A shadow policy bans nobody: %n ban key(s) of this action refuse no hit",
                  nullptr, int(row.ignoredBans));
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case Action:
        return row.shadow ? tr("%1 (shadow)").arg(displayId(row.action)) : displayId(row.action);
    case HitsPerSec:
        return row.lastHits();
    case DenialsPerSec:
        return row.lastDenials();
    case WouldDenyPerSec:
        return row.shadow || row.nowWouldDenials > 0 ? QVariant(row.nowWouldDenials)
                                                     : QVariant(QStringLiteral("\u2013"));
    case WarnsPerSec:
        return row.nowWarns;
    case ActiveBans:
        return row.shadow ? QVariant(QStringLiteral("\u2013")) : QVariant(row.activeBans);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ActionStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == WouldDenyPerSec)
        return tr(
            "Hits of a shadow policy that enforcing it would have denied (they were allowed)");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Action:
        return tr("Action");
    case HitsPerSec:
        return tr("Hits/s");
    case DenialsPerSec:
        return tr("Denials/s");
    case WouldDenyPerSec:
        return tr("Would\ndeny/s"); // two lines: the table fits beside the near-limit one
    case WarnsPerSec:
        return tr("Warnings/s");
    case ActiveBans:
        return tr("Active\nbans");
    case ColumnCount:
        break;
    }
    return {};
}

QVariant NearLimitModel::sortKey(const NearLimitEntry& row, int column)
{
    switch (Column(column)) {
    case User:
        return row.user;
    case Action:
        return row.action;
    case Tier: // banned, deny, warn, ok from the top when ascending; a shadow "deny" after deny
        return int(row.state.tier == tollgate::Tier::Banned ? 0
                   : row.state.tier == tollgate::Tier::Deny ? (row.state.shadow ? 2 : 1)
                   : row.state.tier == tollgate::Tier::Warn ? 3
                                                            : 4);
    case Count:
        return row.state.count;
    case Remaining:
        return remainingOf(row);
    case Since:
        return row.bannedSinceMs;
    case Rate:
        return row.perMinute;
    case ColumnCount:
        break;
    }
    return {};
}

void NearLimitModel::setEntries(std::vector<NearLimitEntry> entries)
{
    replaceRows(std::move(entries));
}

int NearLimitModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NearLimitModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const NearLimitEntry& row = m_rows[size_t(index.row())];
    if (role == RowUserRole)
        return row.user;
    if (role == Qt::ForegroundRole && index.column() == Tier) {
        // A shadow policy's "deny" refuses nobody: the warn colour, in italics (the column
        // keeps its width at 1280 px).
        if (row.state.shadow && row.state.tier == tollgate::Tier::Deny)
            return QBrush(toneColor(Tone::Warn));
        switch (row.state.tier) {
        case tollgate::Tier::Banned:
        case tollgate::Tier::Deny:
            return QBrush(toneColor(Tone::Denied));
        case tollgate::Tier::Warn:
            return QBrush(toneColor(Tone::Warn));
        case tollgate::Tier::Ok:
            break;
        }
        return {};
    }
    if (role == Qt::FontRole && index.column() == Tier && row.state.shadow &&
        row.state.tier == tollgate::Tier::Deny) {
        QFont italic;
        italic.setItalic(true);
        return italic;
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Count)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == SortRole)
        return sortKey(row, index.column());
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case User:
        return displayId(row.user);
    case Action:
        // A user-wide ban's row, as the audit log names its scope.
        return row.action.isEmpty() ? tr("(all)") : displayId(row.action);
    case Tier:
        if (role == Qt::ToolTipRole && row.state.shadow && row.state.tier == tollgate::Tier::Deny)
            return tr("Shadow policy: enforcing it would deny the next hit");
        return tierName(row.state.tier);
    case Count:
        if (row.action.isEmpty()) // no counter, no limit: not "0 / 0"
            return QStringLiteral("\u2013");
        return QStringLiteral("%1 / %2").arg(row.state.count).arg(row.state.limit);
    case Remaining:
        return remainingOf(row);
    case Since: {
        if (row.bannedSinceMs <= 0)
            return QStringLiteral("\u2013");
        // The time alone when it is today's: the column stays narrow.
        const QDateTime since = QDateTime::fromMSecsSinceEpoch(row.bannedSinceMs);
        return since.date() == QDate::currentDate()
                   ? QLocale().toString(since.time(), QLocale::ShortFormat)
                   : QLocale().toString(since, QLocale::ShortFormat);
    }
    case Rate:
        return row.perMinute < 0 ? QStringLiteral("\u2013")
                                 : QLocale().toString(row.perMinute, 'f', 1);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant NearLimitModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Rate)
        return tr("Hits counted per minute: since the user's window began (fixed windows), over "
                  "the last window (sliding windows); – for token buckets");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case User:
        return tr("User");
    case Action:
        return tr("Action");
    case Tier:
        return tr("Tier");
    case Count:
        return tr("Count /\nlimit"); // two lines, as beside: the table fits a 1024-px window
    case Remaining:
        return tr("Remaining");
    case Since:
        return tr("Banned\nsince");
    case Rate:
        return tr("Hits/min");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
