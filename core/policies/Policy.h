#pragma once

#include "core/policies/Algorithm.h"
#include "core/policies/FailurePolicy.h"
#include "core/redis/Result.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <vector>

namespace tollgate {

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
