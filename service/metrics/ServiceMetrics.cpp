#include "service/metrics/ServiceMetrics.h"

#include "tollgate/KeySchema.h"

#include <QMutexLocker>
#include <algorithm>

namespace tollgate::service {

namespace {

// A label value: UTF-8 with '\', '"' and newlines escaped (the text format's rule).
QByteArray labelValue(const QByteArray& value)
{
    QByteArray out;
    for (char c : value) {
        if (c == '\\' || c == '"')
            out.append('\\').append(c);
        else if (c == '\n')
            out.append("\\n");
        else
            out.append(c);
    }
    return out;
}

struct Writer
{
    ExpositionFormat format;
    QByteArray text;

    // A counter's samples are <name>_total in both formats; its family is <name> in OpenMetrics.
    void family(const char* name, const char* type, const char* help)
    {
        const bool counter = std::string_view(type) == "counter";
        QByteArray family = name;
        if (counter && format == ExpositionFormat::Prometheus004)
            family += "_total";
        text += "# HELP " + family + ' ' + help + '\n';
        text += "# TYPE " + family + ' ' + type + '\n';
    }
    void sample(const QByteArray& name, const QByteArray& labels, double value)
    {
        text += name;
        if (!labels.isEmpty())
            text += '{' + labels + '}';
        text += ' ' + QByteArray::number(value, 'g', 17) + '\n';
    }
};

template <size_t N>
void add(ServiceMetrics::Histogram<N>& histogram, const std::array<double, N>& bounds, double value)
{
    size_t bucket = 0;
    while (bucket < N && value > bounds[bucket])
        ++bucket;
    ++histogram.buckets[bucket];
    histogram.sum += value;
    ++histogram.count;
}

template <size_t N>
void renderHistogram(Writer& out, const char* name, const char* help,
                     const ServiceMetrics::Histogram<N>& histogram,
                     const std::array<double, N>& bounds)
{
    out.family(name, "histogram", help);
    const QByteArray base = name;
    qint64 cumulative = 0;
    for (size_t i = 0; i <= N; ++i) {
        cumulative += histogram.buckets[i];
        const QByteArray le = i < N ? QByteArray::number(bounds[i], 'g', 6) : QByteArray("+Inf");
        out.sample(base + "_bucket", "le=\"" + le + '"', double(cumulative));
    }
    out.sample(base + "_sum", {}, histogram.sum);
    out.sample(base + "_count", {}, double(histogram.count));
}

} // namespace

QByteArray ServiceMetrics::domainLabel(const QByteArray& domain)
{
    const QByteArray value = labelValue(domain);
    for (const auto& [key, count] : m_requests) {
        if (std::get<0>(key) == value)
            return value;
    }
    size_t domains = 0;
    QByteArray last;
    for (const auto& [key, count] : m_requests) {
        if (std::get<0>(key) != last) {
            ++domains;
            last = std::get<0>(key);
        }
    }
    return domains < kMaxDomains ? value : QByteArray("_other");
}

void ServiceMetrics::recordDecision(const QByteArray& domain, const char* code,
                                    const char* transport, double seconds, int redisCalls)
{
    m_decisions.fetch_add(1, std::memory_order_relaxed);
    QMutexLocker lock(&m_mutex);
    ++m_requests[{domainLabel(domain), code, transport}];
    add(m_latency, kLatencyBuckets, seconds);
    m_redisCalls += redisCalls;
}

void ServiceMetrics::recordUnmatched(const QByteArray& domain)
{
    QMutexLocker lock(&m_mutex);
    ++m_unmatched[domainLabel(domain)];
}

void ServiceMetrics::recordDescriptor(const QByteArray& domain, const QByteArray& name,
                                      const char* code)
{
    QMutexLocker lock(&m_mutex);
    QByteArray label = labelValue(name);
    if (!m_descriptorNames.count(label)) {
        if (m_descriptorNames.size() < kMaxDescriptors)
            m_descriptorNames.insert(label);
        else
            label = "_other";
    }
    ++m_descriptors[{domainLabel(domain), label, code}];
}

void ServiceMetrics::recordDeadlineAnswer(double lateSeconds)
{
    QMutexLocker lock(&m_mutex);
    add(m_lateness, kLatenessBuckets, std::max(lateSeconds, 0.0));
}

void ServiceMetrics::recordReload(bool ok, const QByteArray& digest)
{
    QMutexLocker lock(&m_mutex);
    ++m_reloads;
    if (!ok)
        ++m_reloadFailures;
    m_lastReloadOk = ok;
    if (ok)
        m_digest = digest;
}

bool ServiceMetrics::lastReloadOk() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastReloadOk;
}

QByteArray ServiceMetrics::render(ExpositionFormat format, const RefusalCache::Stats& cache,
                                  qint64 cacheMaxBytes, bool ready) const
{
    QMutexLocker lock(&m_mutex);
    Writer out{format, {}};
    out.family("tollgated_requests", "counter",
               "Decision requests answered, by domain, code (ok, over_limit, error) and transport.");
    for (const auto& [key, count] : m_requests) {
        const auto& [domain, code, transport] = key;
        out.sample("tollgated_requests_total",
                   "domain=\"" + domain + "\",code=\"" + code + "\",transport=\"" + transport + '"',
                   double(count));
    }
    out.family("tollgated_unmatched_descriptors", "counter",
               "Descriptors no rule of the configuration matched (allowed), by domain.");
    for (const auto& [domain, count] : m_unmatched)
        out.sample("tollgated_unmatched_descriptors_total", "domain=\"" + domain + '"',
                   double(count));
    out.family("tollgated_descriptor_decisions", "counter",
               "Matched descriptors by rule (with detailed_metric: by value) and outcome.");
    for (const auto& [key, count] : m_descriptors) {
        const auto& [domain, name, code] = key;
        out.sample("tollgated_descriptor_decisions_total",
                   "domain=\"" + domain + "\",descriptor=\"" + name + "\",code=\"" + code + '"',
                   double(count));
    }
    renderHistogram(out, "tollgated_decision_seconds",
                    "Time from a request's arrival to its answer.", m_latency, kLatencyBuckets);
    renderHistogram(
        out, "tollgated_deadline_lateness_seconds",
        "How long after its deadline a decision answered by the failure policy was handed on "
        "(0: by its deadline).",
        m_lateness, kLatenessBuckets);
    out.family("tollgated_redis_round_trips", "counter",
               "hit.lua calls sent to Redis for decisions (refusals answered from memory are not).");
    out.sample("tollgated_redis_round_trips_total", {}, double(m_redisCalls));
    out.family("tollgated_refusal_cache_entries", "gauge", "Refusals held in memory.");
    out.sample("tollgated_refusal_cache_entries", {}, double(cache.entries));
    out.family("tollgated_refusal_cache_bytes", "gauge", "Memory the held refusals take.");
    out.sample("tollgated_refusal_cache_bytes", {}, double(cache.bytes));
    out.family("tollgated_refusal_cache_max_bytes", "gauge", "The cache's bound (refusal_cache_bytes).");
    out.sample("tollgated_refusal_cache_max_bytes", {}, double(cacheMaxBytes));
    out.family("tollgated_refusal_cache_hits", "counter", "Hits answered from memory.");
    out.sample("tollgated_refusal_cache_hits_total", {}, double(cache.hits));
    out.family("tollgated_refusal_cache_evictions", "counter",
               "Refusals dropped to stay within the bound.");
    out.sample("tollgated_refusal_cache_evictions_total", {}, double(cache.evictions));
    out.family("tollgated_config_reloads", "counter", "Configuration loads, by result.");
    out.sample("tollgated_config_reloads_total", "result=\"ok\"", double(m_reloads - m_reloadFailures));
    out.sample("tollgated_config_reloads_total", "result=\"failed\"", double(m_reloadFailures));
    out.family("tollgated_config_last_reload_ok", "gauge",
               "1 when the last load of the configuration succeeded; 0: the previous one runs.");
    out.sample("tollgated_config_last_reload_ok", {}, m_lastReloadOk ? 1 : 0);
    out.family("tollgated_config_info", "gauge", "The configuration in force (digest).");
    out.sample("tollgated_config_info", "digest=\"" + m_digest + '"', 1);
    out.family("tollgated_ready", "gauge", "1 while Redis answers or the failure policy decides.");
    out.sample("tollgated_ready", {}, ready ? 1 : 0);
    return out.text;
}

} // namespace tollgate::service
