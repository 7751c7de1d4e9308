#pragma once

#include "core/metrics/Exposition.h"
#include "tollgate/RefusalCache.h"

#include <QByteArray>
#include <QMutex>
#include <array>
#include <atomic>
#include <map>
#include <set>
#include <tuple>

namespace tollgate::service {

/// tollgated's own families (docs/metrics.md, "tollgated"): decisions by domain and code, their
/// latency, how late the failure policy answered at a deadline, Redis round trips per decision,
/// unmatched descriptors, the refusal cache and the configuration's state. Thread-safe; recording
/// never waits on anything but a short lock.
class ServiceMetrics
{
public:
    /// Seconds; the histogram's upper bounds (+Inf implied).
    static constexpr std::array<double, 12> kLatencyBuckets = {
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0};
    /// Domains named in labels at most; the others are counted as domain "_other" (a client
    /// sending random domains must not grow the exposition without bound).
    static constexpr size_t kMaxDomains = 100;

    /// `code`: "ok", "over_limit" or "error"; `transport`: "grpc" or "http".
    void recordDecision(const QByteArray& domain, const char* code, const char* transport,
                        double seconds, int redisCalls);
    void recordUnmatched(const QByteArray& domain);
    /// One matched descriptor's outcome (Decider::setDescriptorCounter); at most
    /// kMaxDescriptors names, the rest counted as "_other" (detailed_metric names values).
    void recordDescriptor(const QByteArray& domain, const QByteArray& name, const char* code);
    static constexpr size_t kMaxDescriptors = 1000;
    void recordReload(bool ok, const QByteArray& digest);
    /// A decision answered by the failure policy at its deadline, handed on `lateSeconds` after
    /// it (negative: early, counted as 0).
    void recordDeadlineAnswer(double lateSeconds);
    /// Seconds; that histogram's upper bounds (+Inf implied).
    static constexpr std::array<double, 7> kLatenessBuckets = {0,     0.0005, 0.001, 0.002,
                                                               0.005, 0.01,   0.05};

    qint64 decisionsTotal() const { return m_decisions.load(std::memory_order_relaxed); }
    bool lastReloadOk() const;

    /// A histogram over N upper bounds: its buckets (+Inf last), sum and count.
    template <size_t N> struct Histogram
    {
        std::array<qint64, N + 1> buckets{};
        double sum = 0;
        qint64 count = 0;
    };

    QByteArray render(ExpositionFormat format, const RefusalCache::Stats& cache,
                      qint64 cacheMaxBytes, bool ready) const;

private:
    QByteArray domainLabel(const QByteArray& domain); // under m_mutex

    mutable QMutex m_mutex;
    std::map<std::tuple<QByteArray, QByteArray, QByteArray>, qint64> m_requests; // domain, code, transport
    std::map<QByteArray, qint64> m_unmatched;
    std::map<std::tuple<QByteArray, QByteArray, QByteArray>, qint64> m_descriptors; // domain, name, code
    std::set<QByteArray> m_descriptorNames;
    Histogram<kLatencyBuckets.size()> m_latency;
    Histogram<kLatenessBuckets.size()> m_lateness;
    qint64 m_redisCalls = 0;
    std::atomic<qint64> m_decisions{0};
    qint64 m_reloads = 0;
    qint64 m_reloadFailures = 0;
    bool m_lastReloadOk = true;
    QByteArray m_digest;
};

} // namespace tollgate::service
