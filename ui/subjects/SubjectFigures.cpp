#include "ui/subjects/SubjectFigures.h"

#include "core/subjects/Usage.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QLocale>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("SubjectFigures", text);
}

const QString kUnknown = QStringLiteral("\u2014");

} // namespace

qint64 steadyToEpochMs(qint64 steadyMs)
{
    static const qint64 offset =
        QDateTime::currentMSecsSinceEpoch() - QDeadlineTimer::current().deadline();
    return steadyMs + offset;
}

Since sinceOf(const CompactRow& row, const RowExtra* extra)
{
    if (row.has(CompactRow::Banned)) {
        if (extra && extra->ban && extra->ban->createdMs > 0)
            return {Since::Kind::Banned, extra->ban->createdMs};
        return {};
    }
    if (row.deniedSeenS != 0)
        return {Since::Kind::SeenDenied, steadyToEpochMs(qint64(row.deniedSeenS) * 1000)};
    return {};
}

qint64 countAt(const CompactRow& row, qint64 steadyMs)
{
    return row.resetDeadline > 0 && row.resetDeadline <= steadyMs ? 0 : row.count;
}

double rateOf(const CompactRow& row, const Policy* policy, const OverrideMarks::Mark* mark,
              qint64 steadyMs)
{
    // Nothing is counted while a ban is in force: the counter holds what came before it.
    if (!policy || !row.has(CompactRow::StateKnown) || row.has(CompactRow::Banned))
        return -1;
    const std::vector<WindowLimit>& windows =
        mark && mark->kind == OverrideKind::Limit ? mark->windows : policy->windows;
    const qint64 resetMs =
        row.resetDeadline > 0 ? qMax<qint64>(0, row.resetDeadline - steadyMs) : 0;
    return hitsPerMinute(policy->algorithm, windows, countAt(row, steadyMs), row.limit, resetMs);
}

QString shortTime(qint64 epochMs)
{
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(epochMs);
    return time.toString(time.date() == QDate::currentDate() ? QStringLiteral("HH:mm")
                                                             : QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString sinceText(const Since& since)
{
    switch (since.kind) {
    case Since::Kind::Banned:
        return shortTime(since.epochMs);
    case Since::Kind::SeenDenied:
        return tr("seen %1").arg(shortTime(since.epochMs));
    case Since::Kind::None:
        break;
    }
    return kUnknown;
}

QString sinceToolTip(const Since& since, bool shadow)
{
    switch (since.kind) {
    case Since::Kind::Banned:
        return tr("Banned since %1 (when the ban was created)").arg(formatTime(since.epochMs));
    case Since::Kind::SeenDenied:
        return (shadow ? tr("Over the shadow policy's limit (never denied) in every read since %1")
                       : tr("Denied in every read since %1"))
                   .arg(formatTime(since.epochMs)) +
               tr("\nseen by this console: Redis keeps no such time, so it may have begun "
                  "earlier, and a short dip between two reads goes unseen");
    case Since::Kind::None:
        break;
    }
    return tr("Neither banned nor denied, or not known since when");
}

QString rateText(double perMinute)
{
    if (perMinute > 0 && perMinute < 0.05) // not "0.0" for a day's window with a hit in it
        return QStringLiteral("<0.1");
    return perMinute < 0 ? kUnknown : QLocale().toString(perMinute, 'f', 1);
}

QString rateToolTip(double perMinute, const Policy* policy, bool banned)
{
    if (banned)
        return tr("Not counted while a ban is in force; the user detail shows the hits "
                  "refused under bans per second, what an unban would let back in");
    if (policy && policy->algorithm == Algorithm::TokenBucket)
        return tr("Not known for a token bucket: it keeps no count of hits");
    if (perMinute < 0 || !policy)
        return tr("Not known: no policy, not read yet, or a window begun less than a second ago");
    if (policy->algorithm == Algorithm::FixedWindow)
        return tr("Hits counted per minute since the window began (its count at the last read "
                  "over the time since its start)");
    return tr("Hits counted per minute over the last window (its count at the last read over "
              "the window's length)");
}

} // namespace tollgate::ui
