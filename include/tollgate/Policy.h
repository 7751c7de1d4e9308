#pragma once

// Policy: how one action is limited (algorithm, windows, cost, warn level, ban, failure
// policy).

#include "tollgate/Result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>
#include <optional>
#include <vector>

namespace tollgate {

enum class Algorithm
{
    FixedWindow,   // one or several windows at once, all-or-nothing
    SlidingLog,    // exact: one sorted-set entry per counted hit
    SlidingWindow, // two fixed windows, the previous one weighted by overlap
    TokenBucket,   // GCRA: a quota refilled continuously, hits spend `cost` tokens
};

/// "fixed_window", "sliding_log", "sliding_window", "token_bucket" (the names the Lua
/// scripts and policy hashes use).
QByteArray algorithmName(Algorithm algorithm);
/// Accepts the names above and the alias "gcra".
std::optional<Algorithm> algorithmFromName(const QByteArray& name);
/// The short code inside state keys: fw, sl, sw, tb.
QByteArray algorithmCode(Algorithm algorithm);
std::optional<Algorithm> algorithmFromCode(QByteArrayView code);

/// What a hit answers when Redis cannot: unreachable, timed out, busy loading, a broken reply.
/// Chosen per policy (field `on_error`) or per caller (Limiter::setFailureMode, which wins).
enum class FailureMode
{
    Report,     // deliver the error; the caller decides (the default)
    FailOpen,   // allow the hit
    FailClosed, // deny the hit
    Insurance,  // an in-process limiter with its own, scaled limits decides (InsuranceLimiter)
};

/// Policy field / CLI spelling: "" (report), "allow", "deny", "insurance".
QByteArray failureModeName(FailureMode mode);
std::optional<FailureMode> failureModeFromName(const QByteArray& name);

/// True for the errors a failure policy stands in for: Redis is not there or not answering
/// (Io, Timeout, Closed, Busy, Protocol). Refusals and bad data (NoPerm, WrongType, invalid
/// input) are reported whatever the mode: allowing through them would hide a broken setup.
bool isUnavailable(const Error& error);

struct WindowLimit
{
    qint64 limit = 0;
    qint64 windowMs = 0;
    bool operator==(const WindowLimit& o) const
    {
        return limit == o.limit && windowMs == o.windowMs;
    }
};

/// How one action is limited. Stored as the hash <p>:policy:<action>; saved only through
/// compare-and-set on `revision` (policy_set.lua).
struct Policy
{
    static constexpr qint64 kMaxLimit = 1'000'000'000;
    static constexpr qint64 kMaxSlidingLogLimit = 100'000; // one zset entry per hit

    QByteArray action;
    Algorithm algorithm = Algorithm::FixedWindow;
    static constexpr int kMaxWindows = 8;

    std::vector<WindowLimit> windows; // 1..8, all-or-nothing, for every algorithm
    qint64 cost = 1;                  // default cost of one hit
    qint64 warn = 0;                  // 0 = none; tier "warn" above this count
    qint64 banMs = 0;                 // ban for this long after exceeding; 0 = none
    bool banUntilMidnight = false;    // or ban until the next local midnight
    bool calendarAligned = false;     // fixed windows of 1m/1h/1d/1w aligned to local time
    QByteArray timeZone = "UTC";      // IANA zone for midnight and calendar windows
    bool countDenied = false;         // denied hits count too
    bool shadow = false;              // decided and counted, never denied nor banned (field shadow)
    QString message;                  // shown to the user on deny
    FailureMode onError = FailureMode::Report; // when Redis cannot answer (field on_error)
    // Maintained by the server; `revision` is the compare-and-set token.
    qint64 revision = 0;
    QString updatedBy;
    qint64 updatedMs = 0;

    /// Every rule with a message naming the field: limits >= 1, windows 1 ms .. 1 year, ...
    Status validate() const;

    /// Field/value pairs for policy_set.lua (without the server-owned fields).
    QList<QPair<QByteArray, QByteArray>> toFields() const;
    /// From HGETALL. Unknown fields are ignored, malformed ones rejected.
    static Result<Policy> fromFields(const QByteArray& action,
                                     const QList<QPair<QByteArray, QByteArray>>& fields);

    /// "10 per 30s" / "10 per 1m, 100 per 1h" — human summary of the windows.
    QString windowsText() const;
    /// Parses "1m:10,1h:100" (window:limit pairs).
    static Result<std::vector<WindowLimit>> parseWindows(const QString& text);
    /// "ban 1h", "ban until midnight" or "".
    QString banText() const;
    bool hasBan() const { return banMs > 0 || banUntilMidnight; }
    /// Whether hit.lua needs the zone's UTC offsets (ARGV[8]); otherwise "0" is passed.
    bool needsLocalTime() const { return banUntilMidnight || calendarAligned; }
};

} // namespace tollgate
