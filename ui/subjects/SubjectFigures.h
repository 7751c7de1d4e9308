#pragma once

#include "ui/subjects/OverrideMarks.h"
#include "ui/subjects/SubjectStore.h"

#include <QDeadlineTimer>
#include <QString>

namespace tollgate {
struct Policy;
}

namespace tollgate::ui {

/// The Subjects page's "since" and rate figures, from what a row already holds and the joined
/// policy and override (never a read of their own): one definition for what the model shows
/// and what the worker sorts by.

/// Now on the steady clock the rows' deadlines use (QDeadlineTimer ms).
inline qint64 steadyNowMs()
{
    return QDeadlineTimer::current().deadline();
}

/// A steady-clock time (QDeadlineTimer ms) as epoch ms, by one offset taken once per process:
/// the same steady time always gives the same epoch time, so a sort by it never depends on
/// when it ran.
qint64 steadyToEpochMs(qint64 steadyMs);

/// Since when a row is banned or denied, and how that is known.
struct Since
{
    enum class Kind
    {
        None,      // neither, or a ban without its creation time
        Banned,    // the ban's creation, from its hash (`created`)
        SeenDenied // the console's first read of the row's current run of denied reads
    };
    Kind kind = Kind::None;
    qint64 epochMs = 0;
};
Since sinceOf(const CompactRow& row, const RowExtra* extra);

/// The row's count at steady ms `steadyMs`: a window whose deadline passed holds nothing.
qint64 countAt(const CompactRow& row, qint64 steadyMs);

/// Hits counted per minute at steady ms `steadyMs` (core hitsPerMinute) over the windows that
/// apply to the row: its override's with other limits, else its policy's; -1 when not known
/// (no policy or state, a ban in force, a token bucket, a window begun less than a second ago).
double rateOf(const CompactRow& row, const Policy* policy, const OverrideMarks::Mark* mark,
              qint64 steadyMs);

/// "14:05" today, "2026-12-31 23:59" another day.
QString shortTime(qint64 epochMs);

/// The Since cell: "14:05" (banned), "seen 14:05" (the console's observation), "—" (unknown).
QString sinceText(const Since& since);
/// What the Since cell's time is, in full; `shadow`: the row's policy never denies.
QString sinceToolTip(const Since& since, bool shadow);
/// The Hits/min cell: "12.5", "<0.1", "—" (unknown).
QString rateText(double perMinute);
/// What the Hits/min cell is measured over.
QString rateToolTip(double perMinute, const Policy* policy, bool banned);

} // namespace tollgate::ui
