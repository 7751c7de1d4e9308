#include "ui/dashboard/StatsSampler.h"

#include "core/cluster/NodeStats.h"
#include "core/limits/Subjects.h"
#include "ui/common/Session.h"

#include <algorithm>
#include <memory>
#include <tuple>

namespace tollgate::ui {

namespace {

// The fields of one second in the stats ring (stats.lua): the second the slot holds, hits,
// warnings, denials, bans.
constexpr int kFieldsPerSecond = 5;
constexpr int kRingSlots = 120;

int severity(Tier tier)
{
    switch (tier) {
    case Tier::Banned:
        return 0;
    case Tier::Deny:
        return 1;
    case Tier::Warn:
        return 2;
    case Tier::Ok:
        break;
    }
    return 3;
}

// Lives on the client's worker thread until the scan is done.
struct ScanTally
{
    int maxNear = 100;
    std::map<QByteArray, qint64> bans;
    qint64 userBans = 0;
    qint64 scanned = 0;
    bool complete = true;             // false: stopped at maxScanKeys, the figures are a sample
    qint64 nearTotal = 0;             // every subject near or over the limit, not only those kept
    std::vector<NearLimitEntry> near; // worst first once trimmed

    // Keeps the worst maxNear: banned, deny, warn, then by remaining.
    void trim()
    {
        std::sort(near.begin(), near.end(), [](const NearLimitEntry& a, const NearLimitEntry& b) {
            const int sa = severity(a.state.tier), sb = severity(b.state.tier);
            if (sa != sb)
                return sa < sb;
            if (a.state.remaining != b.state.remaining)
                return a.state.remaining < b.state.remaining;
            return std::tie(a.action, a.user) < std::tie(b.action, b.user);
        });
        if (int(near.size()) > maxNear)
            near.resize(size_t(maxNear));
    }
};

} // namespace

StatsSampler::StatsSampler(Session* session, QObject* parent) : QObject(parent), m_session(session)
{
    m_timer.setInterval(m_options.interval);
    connect(&m_timer, &QTimer::timeout, this, &StatsSampler::tick);
    connect(session, &Session::eventReceived, this,
            [this](const QByteArray& event) { onEvent(event); });
}

void StatsSampler::setOptions(const Options& options)
{
    m_options = options;
    m_timer.setInterval(options.interval);
}

void StatsSampler::setActive(bool active)
{
    if (active == m_timer.isActive())
        return;
    if (!active) {
        m_timer.stop();
        return;
    }
    m_timer.start();
    tick();
}

void StatsSampler::onEvent(const QByteArray& event)
{
    if (event == "policy")
        m_policiesLoaded = false;
    else if (event == "ban" || event == "unban" || event == "reset")
        m_scanSoon = true; // picked up by the next tick, so a burst of events costs one scan
}

void StatsSampler::tick()
{
    const bool policiesStale = !m_policiesLoaded || !m_policiesAge.isValid() ||
                               m_policiesAge.elapsed() >= m_options.policyRefresh.count();
    if (policiesStale)
        refreshPolicies(); // samples when the list arrives
    else
        sampleStats();
    sampleServer();

    const bool scanDue =
        m_scanSoon || !m_scanAge.isValid() || m_scanAge.elapsed() >= m_options.scanInterval.count();
    if (m_policiesLoaded && !m_scanInFlight && scanDue)
        startScan();
}

void StatsSampler::refreshPolicies()
{
    if (m_policiesInFlight)
        return;
    m_policiesInFlight = true;
    m_session->policies().list(this, [this](Result<std::vector<Policy>> policies) {
        m_policiesInFlight = false;
        if (!policies) {
            Q_EMIT failed(policies.error());
            return;
        }
        m_policies.clear();
        for (Policy& policy : policies.value())
            m_policies.emplace(policy.action, std::move(policy));
        m_policiesLoaded = true;
        m_policiesAge.start();
        sampleStats();
        if (!m_scanInFlight && (m_scanSoon || !m_scanAge.isValid()))
            startScan();
    });
}

void StatsSampler::sampleStats()
{
    if (m_statsInFlight || !m_timer.isActive())
        return;
    m_statsInFlight = true;
    m_session->client()->execute({QByteArrayLiteral("TIME")}, this, [this](Result<Reply> time) {
        if (!time || time->elements.empty()) {
            m_statsInFlight = false;
            Q_EMIT failed(time ? Error{ErrorKind::Protocol, tr("malformed TIME reply")}
                               : time.error());
            return;
        }
        // Whole seconds only: the current one is still being counted.
        const qint64 last = time->elements[0].toInteger().value_or(0) - 1;
        const qint64 first = last - kDashboardSeconds + 1;

        Command fields;
        for (qint64 second = first; second <= last; ++second) {
            const QByteArray slot = QByteArray::number(second % kRingSlots);
            fields << slot + ":t" << slot + ":h" << slot + ":w" << slot + ":d" << slot + ":b";
        }

        auto result = std::make_shared<std::vector<ActionStats>>();
        for (const auto& entry : m_policies) {
            ActionStats stats;
            stats.action = entry.first;
            stats.activeBans = m_bans.count(entry.first) ? m_bans.at(entry.first) : 0;
            result->push_back(std::move(stats));
        }
        if (result->empty()) {
            m_statsInFlight = false;
            m_actions.clear();
            Q_EMIT actionsUpdated();
            return;
        }
        auto pending = std::make_shared<int>(int(result->size()));
        auto error = std::make_shared<std::optional<Error>>();
        // Sent back to back: the client pipelines them on its one connection.
        for (size_t i = 0; i < result->size(); ++i) {
            Command command{QByteArrayLiteral("HMGET"),
                            m_session->schema().statsKey(result->at(i).action)};
            command << fields;
            m_session->client()->execute(
                command, this, [this, result, pending, error, i, first](Result<Reply> reply) {
                    ActionStats& stats = (*result)[i];
                    if (!reply)
                        *error = reply.error();
                    else
                        for (int s = 0; s < kDashboardSeconds; ++s) {
                            const auto value = [&](int field) {
                                const size_t index = size_t(s * kFieldsPerSecond + field);
                                return index < reply->elements.size()
                                           ? double(reply->elements[index].toInteger().value_or(0))
                                           : 0.0;
                            };
                            // A slot still holding an older second counts as nothing.
                            const bool current = value(0) == double(first + s);
                            stats.hits << (current ? value(1) : 0);
                            stats.warns << (current ? value(2) : 0);
                            stats.denials << (current ? value(3) : 0);
                            stats.banned << (current ? value(4) : 0);
                        }
                    if (--*pending > 0)
                        return;
                    m_statsInFlight = false;
                    if (*error) {
                        Q_EMIT failed(**error);
                        return;
                    }
                    m_actions = std::move(*result);
                    Q_EMIT actionsUpdated();
                });
        }
    });
}

void StatsSampler::sampleServer()
{
    if (m_serverInFlight)
        return;
    m_serverInFlight = true;
    // On a cluster every primary answers and the figures are their sum (per node: Topology page).
    m_session->client()->executeOnEveryPrimary(
        {QByteArrayLiteral("INFO")}, this, [this](std::vector<Result<Reply>> replies) {
            m_serverInFlight = false;
            NodeStats total;
            for (const Result<Reply>& reply : replies) {
                if (!reply) {
                    Q_EMIT failed(reply.error());
                    return;
                }
                total.add(NodeStats::fromInfo(reply->toBytes()));
            }
            m_server.valid = true;
            m_server.opsPerSec = total.opsPerSec;
            m_server.usedMemory = total.usedMemory;
            m_server.connectedClients = total.connectedClients;
            Q_EMIT serverUpdated();
        });
}

void StatsSampler::startScan()
{
    m_scanInFlight = true;
    m_scanSoon = false;
    m_scanAge.start();

    auto tally = std::make_shared<ScanTally>();
    tally->maxNear = m_options.maxNearLimit;
    SubjectsOptions options;
    options.scanCount = std::max(1000, m_options.scanCount);
    options.pause = m_options.scanPause;
    const qint64 maxKeys = m_options.maxScanKeys;
    const Context self(this); // made here, on our thread; the callbacks run on the worker
    // The core enumeration (the same rows and numbers as the Subjects page and the CLI); the
    // batches are tallied on the client's worker thread, only `tally` is touched there.
    Subjects(m_session->client(), m_session->schema())
        .stream(
            options,
            [tally, maxKeys](std::vector<Subject>& batch, const SubjectsProgress& progress) {
                for (Subject& s : batch) {
                    if (s.ban)
                        ++tally->bans[s.action];
                    if (s.action.isEmpty() && s.userBan)
                        ++tally->userBans;
                    // Every banned subject counts, also one whose counter has expired (bans
                    // are their own keys), and so does every denied or warned one.
                    if (!s.banned() && !(s.stateKnown && s.nearLimit()))
                        continue;
                    NearLimitEntry entry{s.user, s.action, s.state};
                    if (s.banned())
                        entry.state.tier = Tier::Banned;
                    tally->near.push_back(std::move(entry));
                    ++tally->nearTotal;
                }
                tally->trim();
                tally->scanned = progress.scanned;
                tally->complete = maxKeys <= 0 || progress.scanned < maxKeys;
                return tally->complete;
            },
            [this, self, tally](Result<SubjectsProgress> done) {
                const Callback<SubjectsProgress> finish = [this,
                                                           tally](Result<SubjectsProgress> r) {
                    m_scanInFlight = false;
                    if (!r) {
                        Q_EMIT failed(r.error());
                        return;
                    }
                    tally->trim();
                    m_bans = tally->bans;
                    m_userWideBans = tally->userBans;
                    m_scannedKeys = r->scanned;
                    m_scanComplete = tally->complete;
                    m_nearLimitTotal = tally->nearTotal;
                    m_hasScanned = true;
                    for (ActionStats& stats : m_actions)
                        stats.activeBans = m_bans.count(stats.action) ? m_bans.at(stats.action) : 0;
                    m_nearLimit = std::move(tally->near);
                    Q_EMIT actionsUpdated();
                    Q_EMIT nearLimitUpdated();
                };
                deliver(self, finish, std::move(done));
            });
}

} // namespace tollgate::ui
