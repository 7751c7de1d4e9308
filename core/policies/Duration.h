#pragma once

#include "tollgate/Result.h"

namespace tollgate {

constexpr qint64 kMillisPerSecond = 1000;
constexpr qint64 kMillisPerDay = 86'400'000;
constexpr qint64 kMillisPerYear = 365 * kMillisPerDay;

/// "250ms", "30s", "10m", "1h", "1d", "1w", "1h30m" -> milliseconds. A unit is required:
/// a bare "30" is ambiguous and rejected.
Result<qint64> parseDuration(const QString& text);

/// The shortest exact rendering: 30000 -> "30s", 5400000 -> "1h30m", 1500 -> "1500ms".
QString formatDuration(qint64 ms);

} // namespace tollgate
