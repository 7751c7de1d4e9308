#pragma once

#include "ui/keys/ValueDecoding.h"

namespace tollgate::ui {

// Tollgate's own keys read as what they are (lua/README.md, "Conventions" and "Algorithms").
// Each takes the value as read and the context (window from the key, the server's clock, the
// policy's limit); what cannot be reckoned without the limit or the clock is left out.

/// A fixed-window counter: units counted, of the limit.
DecodedValue decodeFixedWindow(const QByteArray& value, const ValueContext& context);
/// A token bucket's theoretical arrival time (TAT, "<us>" or "<us>+<num>/<den>"): when the
/// bucket is full again, the tokens available now and when the next one comes.
DecodedValue decodeTokenBucket(const QByteArray& value, const ValueContext& context);
/// A sliding log (members are running totals, scores µs times, oldest first): each hit's time
/// to the millisecond and units, and the count in the window now.
DecodedValue decodeSlidingLog(const QList<QPair<QByteArray, QByteArray>>& members,
                              const ValueContext& context);
/// A sliding-window counter (start, cur, prev): the weighted count now.
DecodedValue decodeSlidingWindow(const QList<QPair<QByteArray, QByteArray>>& fields,
                                 const ValueContext& context);
/// The statistics ring of stats.lua: one row per second held, newest first, and the totals.
DecodedValue decodeStatsRing(const QList<QPair<QByteArray, QByteArray>>& fields);

} // namespace tollgate::ui
