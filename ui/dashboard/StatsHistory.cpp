#include "ui/dashboard/StatsHistory.h"

#include <array>
#include <limits>
#include <optional>

namespace tollgate::ui {

namespace {

// hits, cost, warn, denied, banned, would deny, would ban of one packed field, when it holds
// `at` (the last two only once a shadow policy's hit would have been denied).
std::optional<std::array<double, 7>> figures(const Reply& value, qint64 at)
{
    const QList<QByteArray> parts = value.toBytes().split(' ');
    if (parts.size() != 6 && parts.size() != 8)
        return std::nullopt;
    bool ok = false;
    if (parts[0].toLongLong(&ok) != at || !ok)
        return std::nullopt;
    std::array<double, 7> out{};
    for (int i = 0; i < parts.size() - 1; ++i) {
        out[size_t(i)] = double(parts[i + 1].toLongLong(&ok));
        if (!ok)
            return std::nullopt;
    }
    return out;
}

} // namespace

RangeShape shapeOf(ChartRange range)
{
    switch (range) {
    case ChartRange::Hour:
        return {60, 60, 1440, 'm'};
    case ChartRange::Day:
        return {1440, 60, 1440, 'm'};
    case ChartRange::FiveMinutes:
        break;
    }
    return {300, 1, 300, 's'};
}

StatsHistoryRead::StatsHistoryRead(ChartRange range, qint64 serverSeconds)
    : shape(shapeOf(range)), lastSecond(serverSeconds - 1)
{
    const qint64 lastBucket =
        shape.bucketSeconds == 1 ? lastSecond : serverSeconds / shape.bucketSeconds - 1;
    firstBucket = lastBucket - shape.points + 1;
    fields.reserve(shape.points + 1);
    fields << QByteArray('s' + QByteArray::number(lastSecond % 300));
    for (qint64 bucket = firstBucket; bucket <= lastBucket; ++bucket)
        fields << QByteArray(shape.ring + QByteArray::number(bucket % shape.ringSlots));
}

void StatsHistoryRead::apply(const Reply& reply, ActionStats& stats) const
{
    const auto& values = reply.elements;
    stats.bucketSeconds = shape.bucketSeconds;
    stats.hits.clear();
    stats.warns.clear();
    stats.denials.clear();
    stats.banned.clear();
    stats.wouldDenials.clear();
    if (!values.empty())
        if (auto now = figures(values[0], lastSecond)) {
            stats.nowHits = (*now)[0];
            stats.nowWarns = (*now)[2];
            stats.nowDenials = (*now)[3];
            stats.nowWouldDenials = (*now)[5];
        }
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < shape.points; ++i) {
        const size_t index = size_t(i) + 1;
        const qint64 bucket = firstBucket + i;
        const auto f = index < values.size() ? figures(values[index], bucket) : std::nullopt;
        const double none = !f && stalled(bucket) ? unknown : 0;
        stats.hits << (f ? (*f)[0] : none);
        stats.warns << (f ? (*f)[2] : none);
        stats.denials << (f ? (*f)[3] : none);
        stats.banned << (f ? (*f)[4] : none);
        stats.wouldDenials << (f ? (*f)[5] : none);
    }
}

bool StatsHistoryRead::stalled(qint64 bucket) const
{
    const qint64 from = bucket * shape.bucketSeconds;
    const qint64 to = from + shape.bucketSeconds - 1;
    for (const auto& [first, last] : stalls)
        if (first <= from && to <= last)
            return true;
    return false;
}

} // namespace tollgate::ui
