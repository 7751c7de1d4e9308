#pragma once

#include "core/limiter/HitResult.h"
#include "core/policies/Policy.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMutex>

namespace tollgate {

/// The in-process stand-in for Redis while it is unreachable (FailureMode::Insurance): a
/// fixed window per user, action and window of the policy, started by the first hit, with the
/// policy's limits scaled by `factor` (e.g. 1/N with N application instances, since each one
/// counts only its own hits). All windows are all-or-nothing, as in hit.lua. It never bans and
/// never writes to Redis; its counts are forgotten when Redis answers again.
///
/// Thread-safe; memory is bounded by `maxWindows` (expired windows are swept first, and if
/// that is not enough every window starts over).
class InsuranceLimiter
{
public:
    struct Options
    {
        double factor = 1.0; // scaled limit = max(1, floor(limit * factor))
        qsizetype maxWindows = 100'000;
    };

    explicit InsuranceLimiter(Options options);
    InsuranceLimiter() : InsuranceLimiter(Options{}) {}

    /// The one every Limiter uses unless given its own (factor 1).
    static std::shared_ptr<InsuranceLimiter> shared();

    /// Counts (or, with count = false, only evaluates) a hit of `cost` units; decidedBy is
    /// Insurance. The policy must be valid (Limiter validates it first).
    HitResult hit(const Policy& policy, const QByteArray& user, qint64 cost, bool count);

    qsizetype windowCount() const;

private:
    struct Window
    {
        qint64 startMs = 0;
        qint64 windowMs = 0;
        qint64 count = 0;
    };

    void makeRoom(qint64 nowMs);

    Options m_options;
    mutable QMutex m_mutex;
    QHash<QByteArray, Window> m_windows;
    QElapsedTimer m_clock; // monotonic: a wall-clock jump must not reopen or freeze a window
};

} // namespace tollgate
