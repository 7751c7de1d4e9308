#include "core/metrics/Exposition.h"

#include "tollgate/KeySchema.h"

#include <QString>

namespace tollgate {

namespace {

enum class Type
{
    Counter,
    Gauge,
    Info
};

using Labels = std::vector<std::pair<const char*, QByteArray>>;

QByteArray escapeLabel(const QByteArray& value)
{
    QByteArray out;
    out.reserve(value.size());
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

// Label values must be UTF-8: an id that is not keeps its percent-escaped key form.
QByteArray actionLabel(const QByteArray& action)
{
    const bool utf8 = QString::fromUtf8(action).toUtf8() == action;
    return utf8 ? action : KeySchema::escape(action);
}

QByteArray number(double value)
{
    if (value == static_cast<double>(static_cast<qint64>(value)))
        return QByteArray::number(static_cast<qint64>(value));
    return QByteArray::number(value, 'g', 15);
}

/// One family at a time: its header is written only when it gets a sample, so an absent
/// figure (no census yet, Redis down) is no series at all rather than a misleading 0.
class Writer
{
public:
    explicit Writer(ExpositionFormat format) : m_format(format) {}

    void family(const char* name, Type type, const char* help, const char* unit = nullptr)
    {
        m_name = name;
        m_type = type;
        m_help = help;
        m_unit = unit;
        m_headerDone = false;
    }

    void sample(const Labels& labels, double value)
    {
        const bool om = m_format == ExpositionFormat::OpenMetrics;
        // Prometheus 0.0.4 names the counter family after its samples; OpenMetrics without
        // the suffix, and has an info type that 0.0.4 writes as a gauge.
        const QByteArray suffix = m_type == Type::Counter ? "_total"
                                  : m_type == Type::Info  ? "_info"
                                                          : "";
        const QByteArray sampleName = m_name + suffix;
        if (!m_headerDone) {
            const QByteArray familyName = om ? m_name : sampleName;
            const char* type = m_type == Type::Counter ? "counter"
                               : m_type == Type::Gauge ? "gauge"
                               : om                    ? "info"
                                                       : "gauge";
            m_out += "# HELP " + familyName + ' ' + m_help + '\n';
            m_out += "# TYPE " + familyName + ' ' + type + '\n';
            if (om && m_unit)
                m_out += "# UNIT " + familyName + ' ' + m_unit + '\n';
            m_headerDone = true;
        }
        m_out += sampleName;
        if (!labels.empty()) {
            m_out += '{';
            for (size_t i = 0; i < labels.size(); ++i) {
                m_out += (i ? "," : "") + QByteArray(labels[i].first) + "=\"" +
                         escapeLabel(labels[i].second) + '"';
            }
            m_out += '}';
        }
        m_out += ' ' + number(value) + '\n';
    }

    QByteArray finish()
    {
        if (m_format == ExpositionFormat::OpenMetrics)
            m_out += "# EOF\n";
        return m_out;
    }

private:
    ExpositionFormat m_format;
    QByteArray m_out, m_name, m_help;
    Type m_type = Type::Gauge;
    const char* m_unit = nullptr;
    bool m_headerDone = false;
};

void writePolicies(Writer& w, const MetricsSnapshot& s)
{
    w.family("tollgate_policy", Type::Info, "A stored policy: algorithm, shadow mode, revision.");
    for (const Policy& p : s.policies)
        w.sample({{"action", actionLabel(p.action)},
                  {"algorithm", algorithmName(p.algorithm)},
                  {"shadow", p.shadow ? "true" : "false"},
                  {"revision", QByteArray::number(p.revision)}},
                 1);
    w.family("tollgate_policy_limit", Type::Gauge,
             "Hits (cost units) a policy allows per window of window_seconds.");
    for (const Policy& p : s.policies)
        for (const WindowLimit& window : p.windows)
            w.sample({{"action", actionLabel(p.action)},
                      {"window_seconds", number(window.windowMs / 1000.0)}},
                     static_cast<double>(window.limit));
}

void writeTotals(Writer& w, const MetricsSnapshot& s)
{
    w.family("tollgate_hits", Type::Counter,
             "Hits decided by Redis, by outcome, as clients recorded them (lua/stats.lua).");
    for (const ActionTotals& t : s.totals) {
        if (t.action == "*")
            continue;
        const QByteArray action = actionLabel(t.action);
        w.sample({{"action", action}, {"outcome", "allowed"}}, t.allowed());
        w.sample({{"action", action}, {"outcome", "warned"}}, t.warned);
        w.sample({{"action", action}, {"outcome", "denied"}}, t.denied - t.banned);
        w.sample({{"action", action}, {"outcome", "banned"}}, t.banned);
    }
    w.family("tollgate_hit_cost", Type::Counter, "Cost units of the hits counted.");
    for (const ActionTotals& t : s.totals)
        if (t.action != "*")
            w.sample({{"action", actionLabel(t.action)}}, t.cost);
    w.family("tollgate_bans_created", Type::Counter,
             "Bans created, by source; action \"*\" is a user-wide ban.");
    for (const ActionTotals& t : s.totals) {
        const QByteArray action = actionLabel(t.action);
        if (t.action != "*")
            w.sample({{"action", action}, {"source", "automatic"}}, t.autoBans);
        w.sample({{"action", action}, {"source", "manual"}}, t.manualBans);
    }
}

// Shadow policies' hits that enforcing would have denied or banned (they were allowed, and
// count as allowed above).
void writeShadowTotals(Writer& w, const MetricsSnapshot& s)
{
    w.family("tollgate_shadow_denied", Type::Counter,
             "Hits of shadow policies that enforcing would have denied (they were allowed).");
    for (const ActionTotals& t : s.totals)
        if (t.action != "*")
            w.sample({{"action", actionLabel(t.action)}}, t.wouldDeny);
    w.family("tollgate_shadow_banned", Type::Counter,
             "Automatic bans shadow policies would have created (none was written).");
    for (const ActionTotals& t : s.totals)
        if (t.action != "*")
            w.sample({{"action", actionLabel(t.action)}}, t.wouldBan);
}

void writeCensus(Writer& w, const MetricsSnapshot& s)
{
    w.family("tollgate_census_passes", Type::Counter,
             "Completed background scans of the prefix since the exporter started.");
    w.sample({}, static_cast<double>(s.censusPasses));
    if (!s.census)
        return;
    const CensusResult& c = *s.census;
    w.family("tollgate_census_age_seconds", Type::Gauge,
             "Age of the background scan the census figures come from.", "seconds");
    w.sample({}, std::max<qint64>(0, s.nowMs - c.finishedMs) / 1000.0);
    w.family("tollgate_census_duration_seconds", Type::Gauge,
             "How long the last background scan took.", "seconds");
    w.sample({}, c.durationSeconds);
    w.family("tollgate_census_keys_scanned", Type::Gauge, "Keys the last background scan saw.");
    w.sample({}, static_cast<double>(c.keysScanned));
    w.family("tollgate_keys_without_ttl", Type::Gauge,
             "Keys of ours that need a TTL and have none (tollgatectl repair fixes them).");
    w.sample({}, static_cast<double>(c.keysWithoutTtl));
    w.family("tollgate_subjects", Type::Gauge, "Users with state or a ban, per action.");
    for (const auto& [action, count] : c.subjects)
        w.sample({{"action", actionLabel(action)}}, static_cast<double>(count));
    w.family("tollgate_bans_active", Type::Gauge,
             "Bans in force, per action and scope (user: every action, action \"*\").");
    for (const auto& [key, count] : c.activeBans)
        w.sample({{"action", actionLabel(key.first)}, {"scope", key.second}},
                 static_cast<double>(count));
}

} // namespace

ExpositionFormat negotiateFormat(const QByteArray& acceptHeader)
{
    return acceptHeader.contains("application/openmetrics-text") ? ExpositionFormat::OpenMetrics
                                                                 : ExpositionFormat::Prometheus004;
}

QByteArray contentType(ExpositionFormat format)
{
    return format == ExpositionFormat::OpenMetrics
               ? QByteArrayLiteral("application/openmetrics-text; version=1.0.0; charset=utf-8")
               : QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
}

QByteArray renderMetrics(const MetricsSnapshot& s, ExpositionFormat format)
{
    Writer w(format);
    w.family("tollgate_redis_up", Type::Gauge, "1 when Redis answered this scrape, else 0.");
    w.sample({}, s.redisUp ? 1 : 0);
    writePolicies(w, s);
    writeTotals(w, s);
    writeShadowTotals(w, s);
    writeCensus(w, s);
    w.family("tollgate_exporter_scrape_duration_seconds", Type::Gauge,
             "How long the exporter took to read Redis for this scrape.", "seconds");
    w.sample({}, s.scrapeSeconds);
    w.family("tollgate_exporter_scrape_redis_commands", Type::Gauge,
             "Redis commands this scrape sent (grows with actions, never with users).");
    w.sample({}, static_cast<double>(s.scrapeCommands));
    w.family("tollgate_exporter_errors", Type::Counter,
             "Errors the exporter met since it started, by kind.");
    for (const auto& [kind, count] : s.errors)
        w.sample({{"kind", kind.toUtf8()}}, static_cast<double>(count));
    return w.finish();
}

} // namespace tollgate
