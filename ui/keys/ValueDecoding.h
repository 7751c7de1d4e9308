#pragma once

#include "core/redis/CommandBuilder.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"
#include "tollgate/Reply.h"

#include <QStringList>
#include <optional>

namespace tollgate::ui {

/// A value as the value viewer shows it: rows under headers, and what it means in words.
struct DecodedValue
{
    QStringList headers;
    QList<QStringList> rows;
    QString meaning; // empty for a value that has no reading of its own
    QString summary; // the reading in a few words, for the Keys table; empty when there is none
};

/// What a value means besides its bytes: its place in Tollgate's schema, the server's clock
/// when it was read, and the limit of its window in the action's policy.
struct ValueContext
{
    KeySchema::Parsed place;
    qint64 serverNowUs = 0;      // TIME, read with the value; 0 = unknown
    std::optional<qint64> limit; // the policy's limit for the key's window, when it has one
    qint64 size = -1;            // entries the value holds (ZCARD...), -1 = unknown
};

/// TIME's reply in µs since the epoch (0 when it is not one).
qint64 serverTimeUs(const Reply& time);
/// The limit `policy` sets for the window of the state key at `place` (none when the policy
/// has another algorithm or no such window).
std::optional<qint64> limitAt(const Policy& policy, const KeySchema::Parsed& place);

/// The command reading a value of `type`, at most `maxItems` entries: a statistics ring whole
/// (HGETALL: its size is bounded by design), a sliding log's newest members (the count is
/// reckoned from the newest), other zsets, lists and streams from their start, hashes and sets
/// by one HSCAN/SSCAN step.
Command valueCommand(const QByteArray& type, const QByteArray& key, const KeySchema::Parsed& place,
                     int maxItems);
/// Its size: STRLEN, HLEN, ZCARD, XLEN, LLEN or SCARD (empty for an unknown type).
Command sizeCommand(const QByteArray& type, const QByteArray& key);

/// The reply of valueCommand() as rows: a string as text; a hash as fields; a zset as members
/// with their scores (times shown to the millisecond); a stream one column per field; lists
/// and sets as items. Tollgate's own keys are read as what they are: a counter, a token
/// bucket's theoretical arrival time, a sliding log, a sliding-window hash, a statistics ring.
/// Numbers that are epoch times (ms or µs) are shown as times too.
DecodedValue decodeValue(const QByteArray& type, const Reply& reply, const ValueContext& context);

/// An epoch time in ms (2001-2286) or µs as a local time, or empty when `value` is neither.
QString timeOf(const QByteArray& value, bool precise = false);

} // namespace tollgate::ui
