#include "ui/dashboard/StatsSampler.h"

#include "core/cluster/NodeStats.h"
#include "ui/common/Session.h"
#include "ui/dashboard/StatsHistory.h"

#include <memory>

namespace tollgate::ui {

StatsSampler::StatsSampler(Session* session, QObject* parent)
    : QObject(parent), m_session(session), m_banCounter(new BanCounter(session, this)),
      m_sweep(new NearLimitSweep(session, this))
{
    m_timer.setInterval(m_options.interval);
    connect(&m_timer, &QTimer::timeout, this, &StatsSampler::tick);
    connect(session, &Session::eventReceived, this, &StatsSampler::onEvent);
    connect(session, &Session::responsivenessChanged, this, [this](bool responsive) {
        if (!responsive && m_serverNowMs > 0 && isActive())
            m_stalled = true;
    });
    connect(m_banCounter, &BanCounter::updated, this, &StatsSampler::updateBans);
    connect(m_banCounter, &BanCounter::failed, this, &StatsSampler::failed);
    connect(m_sweep, &NearLimitSweep::updated, this, &StatsSampler::nearLimitUpdated);
    connect(m_sweep, &NearLimitSweep::failed, this, &StatsSampler::failed);
}

void StatsSampler::setOptions(const Options& options)
{
    m_options = options;
    m_timer.setInterval(options.interval);
    m_banCounter->setOptions(options.bans);
    m_sweep->setOptions(options.sweep);
}

void StatsSampler::setActive(bool active)
{
    if (active == m_timer.isActive())
        return;
    m_banCounter->setActive(active);
    m_sweep->setActive(active);
    if (!active) {
        m_timer.stop();
        return;
    }
    m_timer.start();
    tick();
}

void StatsSampler::onEvent(const QByteArray& event, const QByteArray& user,
                           const QByteArray& action)
{
    if (event == "policy") {
        m_policiesLoaded = false;
        return;
    }
    if (!isActive() || user.isEmpty() || (event != "ban" && event != "unban" && event != "reset"))
        return;
    // The named subject and ban now; other counters may have moved too: the next sweep soon.
    m_sweep->readNamed(user, action);
    m_sweep->sweepSoon();
    if (event != "reset") {
        std::vector<QByteArray> actions;
        for (const auto& entry : m_policies)
            actions.push_back(entry.first);
        m_banCounter->reread(user, action, actions);
    }
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
}

void StatsSampler::updateBans()
{
    for (ActionStats& stats : m_actions)
        countBans(stats);
    Q_EMIT actionsUpdated();
}

void StatsSampler::countBans(ActionStats& stats)
{
    const qint64 keys = m_banCounter->count(stats.action, m_serverNowMs);
    stats.activeBans = stats.shadow ? 0 : keys;
    stats.ignoredBans = stats.shadow ? keys : 0;
}

bool StatsSampler::isShadow(const QByteArray& action) const
{
    const auto policy = m_policies.find(action);
    return policy != m_policies.end() && policy->second.shadow;
}

BanTotals StatsSampler::banTotals()
{
    BanTotals totals;
    totals.userWide = m_banCounter->count(QByteArray(), m_serverNowMs);
    for (const QByteArray& action : m_banCounter->actions())
        if (!action.isEmpty() && !isShadow(action))
            totals.perAction += m_banCounter->count(action, m_serverNowMs);
    return totals;
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
        const qint64 now = time->elements[0].toInteger().value_or(0);
        const qint64 micros =
            time->elements.size() > 1 ? time->elements[1].toInteger().value_or(0) : 0;
        noteServerSecond(now);
        m_serverNowMs = now * 1000 + micros / 1000;
        auto history = std::make_shared<StatsHistoryRead>(m_range, now);
        history->stalls = m_stalls;
        std::shared_ptr<const StatsHistoryRead> read = std::move(history);

        auto result = std::make_shared<std::vector<ActionStats>>();
        for (const auto& entry : m_policies) {
            ActionStats stats;
            stats.action = entry.first;
            stats.shadow = entry.second.shadow;
            countBans(stats);
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
        const Context self(this);
        // Sent back to back: the client pipelines them on its one connection. The replies (up
        // to 1,441 fields each) are taken apart on the client's worker thread.
        for (size_t i = 0; i < result->size(); ++i) {
            Command command{QByteArrayLiteral("HMGET"),
                            m_session->schema().statsKey(result->at(i).action)};
            command << read->fields;
            m_session->client()->execute(
                command, nullptr,
                [this, self, result, pending, error, i, read](Result<Reply> reply) {
                    if (!reply)
                        *error = reply.error();
                    else
                        read->apply(*reply, (*result)[i]);
                    if (--*pending > 0)
                        return;
                    self.post([this, result, error] {
                        m_statsInFlight = false;
                        if (*error) {
                            Q_EMIT failed(**error);
                            return;
                        }
                        m_actions = std::move(*result);
                        Q_EMIT actionsUpdated();
                    });
                });
        }
    });
}

void StatsSampler::noteServerSecond(qint64 second)
{
    // The first TIME answered after a stall: from the second after the last one answered before
    // it up to the one before this, Redis counted nothing.
    const qint64 before = m_serverNowMs / 1000;
    if (m_stalled && second - 1 > before)
        m_stalls.emplace_back(before + 1, second - 1);
    m_stalled = false;
    // The longest range charted is a day.
    while (!m_stalls.empty() && m_stalls.front().second < second - 86'400)
        m_stalls.erase(m_stalls.begin());
}

void StatsSampler::setRange(ChartRange range)
{
    if (range == m_range)
        return;
    m_range = range;
    sampleStats(); // now, not at the next tick (a sample in flight is followed by the tick's)
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

} // namespace tollgate::ui
