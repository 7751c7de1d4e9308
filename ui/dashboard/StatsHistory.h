#pragma once

#include "tollgate/Reply.h"
#include "ui/dashboard/DashboardData.h"

#include <QList>
#include <utility>
#include <vector>

namespace tollgate::ui {

/// What one HMGET of an action's stats hash reads for a chart range: stats.lua's history
/// fields "s<second % 300>" and "m<minute % 1440>", each "<second or minute> <hits> <cost>
/// <warn> <denied> <banned>[ <would deny> <would ban>]". Whole seconds and minutes only: the
/// current one is still being counted.
struct StatsHistoryRead
{
    RangeShape shape{};
    qint64 firstBucket = 0;   // the oldest second or minute charted
    qint64 lastSecond = 0;    // the last whole second (the table's "now")
    QList<QByteArray> fields; // the last whole second's, then one per point
    // Server seconds (first, last) when Redis did not answer: nothing was counted then, and a
    // bucket wholly inside one is unknown (NaN, a gap on the chart), not a quiet 0.
    std::vector<std::pair<qint64, qint64>> stalls;

    StatsHistoryRead(ChartRange range, qint64 serverSeconds);

    /// Fills `stats`' series and rates from the HMGET reply; a field missing, malformed or
    /// still holding an older second or minute counts as nothing, unless a stall covers it.
    void apply(const Reply& reply, ActionStats& stats) const;

private:
    bool stalled(qint64 bucket) const; // the bucket lies wholly inside a stall
};

} // namespace tollgate::ui
