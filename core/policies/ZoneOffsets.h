#pragma once

#include "tollgate/Result.h"

#include <QByteArray>

namespace tollgate {

/// Lua inside Redis has no time zone database, so clients hand hit.lua the UTC offsets of the
/// policy's IANA zone as text (lua/README.md, ARGV[8] and the policy field `tz_offsets`):
///   "<offset_ms>[,<utc_ms>:<offset_ms>...]"
/// the offset in force at the start of the span, then every change inside it, ascending.
/// Local time = UTC + offset; "Europe/Berlin" over a spring change reads
///   "3600000,1774746000000:7200000".

/// Whether QTimeZone knows the id ("Europe/Berlin", "UTC", "UTC+02:00").
bool isKnownZone(const QByteArray& ianaId);

/// The offsets of `ianaId` from `fromMs` to `toMs` (UTC epoch ms). InvalidInput for an unknown
/// zone.
Result<QByteArray> zoneOffsets(const QByteArray& ianaId, qint64 fromMs, qint64 toMs);

/// The offsets around the current time (2 days back, 40 days ahead): what each hit needs, even
/// with a client clock days off the server's. Cached per zone and refreshed daily, so a hit
/// does not ask QTimeZone each time. Thread-safe.
Result<QByteArray> zoneOffsetsAroundNow(const QByteArray& ianaId);

/// The span stored with a policy for clients without a zone database: from now, 10 years ahead.
Result<QByteArray> zoneOffsetsForPolicy(const QByteArray& ianaId);

} // namespace tollgate
