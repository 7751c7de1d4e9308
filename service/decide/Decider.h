#pragma once

#include "service/decide/Decision.h"
#include "service/decide/PolicyBook.h"
#include "tollgate/Limiter.h"

#include <chrono>
#include <functional>
#include <memory>

namespace tollgate::service {

class DecisionDeadlines;

namespace detail {
struct Job;
struct Pending;
} // namespace detail

/// What every descriptor of a request gets, as Envoy's rate limit service answers
/// (docs/service.md): each matched limit is one hit.lua call (or a refusal from memory), all
/// sent at once; the request is over limit when any descriptor is; a shadow policy's hit is
/// always OK. Unmatched descriptors, unknown domains and `unlimited` rules are OK without
/// Redis. `done` runs once, on the thread of the last reply or of the deadline (never the
/// caller's loop).
class Decider
{
public:
    struct Counters // read by the metrics
    {
        std::function<void(const QByteArray& domain)> unmatched;
    };

    Decider(Limiter limiter, std::shared_ptr<const ServiceConfig> config,
            std::shared_ptr<PolicyBook> policies);

    void setConfig(std::shared_ptr<const ServiceConfig> config);
    /// Before serving: a decision still waiting on Redis `timeout` after it came (the Redis
    /// URL's) gets the failure policy's answer for what is still out (`onError`, else each
    /// policy's own), from a thread of its own (DecisionDeadlines), whatever the connection
    /// and the other threads are doing. None by default (each command's own deadline only).
    void setDeadline(std::chrono::milliseconds timeout, std::optional<FailureMode> onError,
                     std::function<void(double lateSeconds)> late = {});
    std::shared_ptr<const ServiceConfig> config() const;
    void setUnmatchedCounter(std::function<void(const QByteArray& domain)> count);
    /// Called once per matched descriptor answered: its DescriptorDecision::metricName and
    /// "ok", "over_limit" or "shadow_over_limit" (a shadow hit that enforcing would refuse).
    void setDescriptorCounter(std::function<void(const QByteArray& domain, const QByteArray& name,
                                                 const char* code)> count);

    /// InvalidInput for an empty domain, no descriptors or a limit of unknown unit (a cost above
    /// Policy::kMaxLimit is refused: OVER_LIMIT, never an error a proxy would let through);
    /// Redis' error when it could not answer and the failure policy reports.
    void decide(const DecisionRequest& request, std::function<void(Result<Decision>)> done) const;

    const Limiter& limiter() const { return m_limiter; }

private:
    /// The hits a request needs, one per matched limit (statuses filled for the rest), or why
    /// the request is refused as invalid.
    std::optional<Error> plan(const DecisionRequest& request, detail::Pending& pending,
                              std::vector<detail::Job>& jobs) const;
    /// Sends them all at once; the last reply (or none), or the deadline, finishes the decision.
    void send(std::vector<detail::Job> jobs, const std::shared_ptr<detail::Pending>& pending,
              std::chrono::steady_clock::time_point started) const;

    Limiter m_limiter;
    std::shared_ptr<PolicyBook> m_policies;
    std::shared_ptr<DecisionDeadlines> m_deadlines; // null: none
    mutable QMutex m_mutex; // guards the two below (swapped by a reload)
    std::shared_ptr<const ServiceConfig> m_config;
    std::function<void(const QByteArray&)> m_unmatched;
    std::function<void(const QByteArray&, const QByteArray&, const char*)> m_descriptors;
};

} // namespace tollgate::service
