// What each cell of the subjects table shows: texts, colours, fonts and tooltips, from what a
// row holds and the joined policies and overrides (SubjectsModel.cpp applies and orders rows).
#include "ui/subjects/SubjectsModel.h"

#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"
#include "ui/common/Palette.h"
#include "ui/common/RowRoles.h"
#include "ui/subjects/SubjectFigures.h"

#include <QDateTime>
#include <QFont>

namespace tollgate::ui {

namespace {

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
    const qint64 now = steadyNowMs();
    const BanInfo* ban = banOf(row, extra);
    switch (column) {
    case User:
        return boundedDisplayId(m_store.user(storeRow));
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
        return row.has(CompactRow::StateKnown) || row.has(CompactRow::Banned)
                   ? QVariant(
                         remainingShown(row.limit, countAt(row, now), row.has(CompactRow::Banned)))
                   : QVariant();
    case Ttl:
        if (ban)
            return banCountdown(
                ban->untilMs > 0 ? ban->untilMs - QDateTime::currentMSecsSinceEpoch() : -1);
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
        return rateToolTip(rateOf(row, policyOf(storeRow), markOf(storeRow), steadyNowMs()),
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
        return qBound(0.0, double(countAt(row, steadyNowMs())) / double(row.limit), 1.0);
    case TierRole:
        return row.has(CompactRow::StateKnown) ? int(row.tier) : -1;
    case UserIdRole:
    case RowUserRole:
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

} // namespace tollgate::ui
