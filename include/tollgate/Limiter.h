#pragma once

// Limiter: counts hits against a policy, one atomic script call per hit; InsuranceLimiter:
// the in-process limits a failure policy may fall back on.

#include "tollgate/Client.h"
#include "tollgate/HitResult.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

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

class HitStats;
class OverrideTargets;
class PreparedHit;
class RefusalCache;

/// Counts hits against a policy with hit.lua: one atomic EVALSHA per hit, whatever the
/// algorithm, so a counter can never be left without its TTL. Each policy's command is
/// prepared once (PreparedHit) and reused while the policy stays the same; so is, per user,
/// the command with the windows of a limit override that has other window lengths
/// (OverrideTargets: its hits then take one round trip, not two). Copies of a Limiter share
/// those, and it may be used from any thread.
class Limiter
{
public:
    Limiter(Client* client, KeySchema schema);

    /// Counts one hit of `cost` units (0 = the policy's default cost).
    void hit(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
             Callback<HitResult> done) const;
    /// What a hit of `cost` would get, without counting anything (read-only).
    void peek(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
              Callback<HitResult> done) const;

    const KeySchema& schema() const { return m_schema; }

    /// The failure policy's answer for a hit Redis could not answer, or `error` itself when
    /// the mode is Report or the error is not unavailability. For callers that failed before
    /// a hit could be sent (the CLI could not even read the policy). A shadow policy's hit is
    /// allowed whatever the mode says (`shadow` set, the tier the mode would give).
    static Result<HitResult> answerWithoutRedis(FailureMode mode, InsuranceLimiter* insurance,
                                                const Policy& policy, const QByteArray& user,
                                                qint64 cost, bool count, const Error& error);

    /// Also feed the console's per-second statistics: outcomes are added up per client and
    /// written by HitStats (stats.lua) at most once a second per action. Off by default.
    void setRecordStats(bool on);

    /// What hit and peek answer when Redis cannot (isUnavailable): overrides each policy's own
    /// `on_error`. Insurance counts in `insurance`, or in InsuranceLimiter::shared() if null.
    /// The result's decidedBy says which path answered.
    void setFailureMode(FailureMode mode, std::shared_ptr<InsuranceLimiter> insurance = {});

    /// Answer refusals with a known end from `cache` until then, without Redis (RefusalCache;
    /// keep it current with RefusalCacheFeed). Such answers say DecidedBy::Cache and are counted
    /// in the statistics like any other hit. Null (the default): every hit goes to Redis.
    void setRefusalCache(std::shared_ptr<RefusalCache> cache);
    const std::shared_ptr<RefusalCache>& refusalCache() const { return m_refusals; }

private:
    struct PreparedCache;

    void run(bool peek, const Policy& policy, const QByteArray& user, qint64 cost, Context context,
             Callback<HitResult> done) const;
    /// run() once the server's mode (standalone or cluster) is known.
    void send(bool peek, const Policy& policy, const QByteArray& user, qint64 cost, Context context,
              Callback<HitResult> done) const;
    Result<std::shared_ptr<const PreparedHit>> prepared(const Policy& policy, bool cluster) const;

    Client* m_client;
    KeySchema m_schema;
    std::shared_ptr<PreparedCache> m_prepared;
    std::shared_ptr<OverrideTargets> m_overrideTargets; // users redirected to their override
    std::shared_ptr<HitStats> m_stats;                  // null: statistics off
    std::optional<FailureMode> m_onError;               // the caller's choice; else the policy's
    std::shared_ptr<InsuranceLimiter> m_insurance;
    std::shared_ptr<RefusalCache> m_refusals; // null: off
};

} // namespace tollgate
