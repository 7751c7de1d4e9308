#include "app/demo/DemoTraffic.h"

#include "app/demo/DemoHistory.h"
#include "app/demo/DemoOverrides.h"
#include "app/demo/DemoRevisions.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTimeZone>
#include <algorithm>
#include <utility>

namespace tollgate {

namespace {

Policy makePolicy(const char* action, Algorithm algorithm, std::vector<WindowLimit> windows)
{
    Policy policy;
    policy.action = action;
    policy.algorithm = algorithm;
    policy.windows = std::move(windows);
    return policy;
}

constexpr qint64 kSecond = 1000;
constexpr qint64 kMinute = 60 * kSecond;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;

struct Abuser
{
    const char* user;
    const char* action;
    int hitsPerTick;
};

// Each one trips its action's limit within a few seconds: warn first where the policy has a
// warn tier, then deny, then the ban.
constexpr Abuser kAbusers[] = {
    {"scraper-42", "view", 2},       {"spam-bot-7", "comment", 1}, {"like-farm-3", "like", 1},
    {"search-crawler", "search", 1}, {"api-hammer", "api", 2},
};

// When the traffic begins: this long before the second after the history's last one, just
// after the middle of that last second (HitStats writes at each middle of a second).
constexpr qint64 kStartBeforeNextSecondMs = 450;

// How ordinary users spread their clicks over the actions (weights).
struct Mix
{
    const char* action;
    int weight;
};
constexpr Mix kMix[] = {{"view", 40}, {"search", 15}, {"like", 15}, {"comment", 8},
                        {"api", 12},  {"export", 5},  {"upload", 5}};

} // namespace

DemoTraffic::DemoTraffic(ConnectionOptions connection, KeySchema schema, Options options,
                         QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_schema(std::move(schema))
{
    connection.clientName = QStringLiteral("tollgate-demo-traffic");
    m_client = std::make_unique<Client>(std::move(connection));
    m_limiter = std::make_unique<Limiter>(m_client.get(), m_schema);
    m_limiter->setRecordStats(true);
    m_timer.setInterval(m_options.tick);
    connect(&m_timer, &QTimer::timeout, this, &DemoTraffic::tick);
    // Without automatic reconnect (tollgatectl simulate) a lost server ends the run with its
    // cause; with it, the traffic simply resumes once the client is back.
    connect(m_client.get(), &Client::stateChanged, this,
            [this](ConnectionState state, const Error& error) {
                // Until the policies are loaded, loading them reports the failure itself; from
                // then on (the history written, the hits) this is where it is reported.
                if (state != ConnectionState::Disconnected)
                    return;
                m_lostWith = error;
                if (!m_policiesLoaded || m_stopped)
                    return;
                stop();
                Q_EMIT failed(error);
            });
    m_reload.setInterval(m_options.policyReload);
    connect(&m_reload, &QTimer::timeout, this, &DemoTraffic::reloadPolicies);
}

DemoTraffic::DemoTraffic(ConnectionOptions connection, KeySchema schema, QObject* parent)
    : DemoTraffic(std::move(connection), std::move(schema), Options{}, parent)
{
}

DemoTraffic::~DemoTraffic()
{
    stop();
}

QList<QByteArray> DemoTraffic::abusiveUsers()
{
    QList<QByteArray> users;
    for (const Abuser& abuser : kAbusers)
        users << QByteArray(abuser.user);
    return users;
}

std::vector<Policy> DemoTraffic::examplePolicies()
{
    std::vector<Policy> policies;

    Policy comment = makePolicy("comment", Algorithm::FixedWindow, {{10, 30 * kSecond}});
    comment.message = QStringLiteral("You are commenting too fast; try again in a few seconds.");
    policies.push_back(comment);

    Policy like = makePolicy("like", Algorithm::FixedWindow, {{10, 10 * kSecond}});
    like.banMs = kHour;
    policies.push_back(like);

    Policy upload = makePolicy("upload", Algorithm::FixedWindow, {{100, kDay}});
    upload.banUntilMidnight = true;
    upload.calendarAligned = true; // "today's quota": a local calendar day, like the ban
    upload.timeZone = QTimeZone::systemTimeZoneId();
    policies.push_back(upload);

    Policy view = makePolicy("view", Algorithm::FixedWindow, {{20, kMinute}});
    view.warn = 10;
    view.banMs = kHour;
    policies.push_back(view);

    Policy search =
        makePolicy("search", Algorithm::FixedWindow, {{10, kMinute}, {100, kHour}, {1000, kDay}});
    // Tried out before it is enforced: the crawler is counted and reported, never denied.
    search.shadow = true;
    policies.push_back(search);

    policies.push_back(makePolicy("api", Algorithm::SlidingLog, {{5, kSecond}}));
    policies.push_back(makePolicy("export", Algorithm::TokenBucket, {{100, kHour}}));
    return policies;
}

void DemoTraffic::start()
{
    if (!m_stopped)
        return;
    m_stopped = false;
    m_policiesLoaded = false;
    m_client->open();
    loadPolicies();
}

void DemoTraffic::loadPolicies()
{
    const std::vector<Policy> wanted = examplePolicies();
    auto pending = std::make_shared<int>(int(wanted.size()));
    auto firstError = std::make_shared<std::optional<Error>>();
    const PolicyStore store(m_client.get(), m_schema);
    for (const Policy& policy : wanted) {
        const Policy saved = policy;
        auto finish = [this, pending, firstError](std::optional<Policy> loaded,
                                                  std::optional<Error> error) {
            if (loaded)
                m_policies.push_back(*loaded);
            if (error && !*firstError)
                *firstError = error;
            if (--*pending > 0 || m_stopped)
                return;
            if (m_policies.empty()) {
                Q_EMIT failed(firstError->value_or(
                    Error{ErrorKind::NotFound, QStringLiteral("no policy could be loaded")}));
                return;
            }
            m_policiesLoaded = true;
            // Lost while the last policies were still being saved: the handler above kept
            // quiet then, so it is said here.
            if (m_client->state() == ConnectionState::Disconnected) {
                stop();
                Q_EMIT failed(m_lostWith);
                return;
            }
            // The charts of the last hour and day get a past to show, the second under way
            // included whole (HSETNX keeps a field a live hit wrote first). The hits are
            // counted in memory and written at each middle of a second (HitStats), so the
            // traffic begins just after the middle of that second: its first write, a second
            // later, gives the next second a whole second of hits and the charts run on with
            // no dip where history and traffic meet. A first tick that comes late (the GUI
            // thread building the window) sends what was due since.
            const Context self(this);
            seedDemoHistory(
                m_client.get(), m_schema, m_policies, steadyRates(),
                [this, self](int untilNextSecondMs) {
                    QElapsedTimer seeded;
                    seeded.start();
                    const qint64 startsIn = untilNextSecondMs - kStartBeforeNextSecondMs;
                    self.post([this, seeded, startsIn] {
                        QTimer::singleShot(int(std::max<qint64>(0, startsIn - seeded.elapsed())),
                                           this, [this, seeded, startsIn] {
                                               startTraffic(std::max<qint64>(
                                                   0, seeded.elapsed() - startsIn));
                                           });
                    });
                });
        };
        auto onSaved = [this, saved, finish](Result<qint64> revision) {
            if (revision) {
                Policy stored = saved;
                stored.revision = revision.value();
                finish(stored, std::nullopt);
                return;
            }
            if (revision.error().kind != ErrorKind::Conflict) {
                finish(std::nullopt, revision.error());
                return;
            }
            // Someone (an earlier demo run) saved it already: use theirs.
            PolicyStore(m_client.get(), m_schema)
                .get(saved.action, this, [finish](Result<Policy> existing) {
                    if (existing)
                        finish(existing.value(), std::nullopt);
                    else
                        finish(std::nullopt, existing.error());
                });
        };
        // "like" comes with earlier revisions, for the policy history to show.
        if (saved.action == "like")
            saveWithDemoRevisions(store, saved, m_options.actor, this, onSaved);
        else
            store.save(saved, m_options.actor, this, onSaved);
    }
}

void DemoTraffic::reloadPolicies()
{
    if (m_reloading || m_stopped)
        return;
    m_reloading = true;
    PolicyStore(m_client.get(), m_schema).list(this, [this](Result<std::vector<Policy>> stored) {
        m_reloading = false;
        // A failed read keeps the last known set: the demo goes on as before.
        if (!stored || m_stopped)
            return;
        m_policies = std::move(*stored);
        Q_EMIT policiesReloaded();
    });
}

void DemoTraffic::startTraffic(qint64 lateMs)
{
    if (m_stopped)
        return;
    if (m_options.overriddenUsers)
        DemoOverrides::seed(m_client.get(), m_schema, m_options.actor, this);
    m_backlogMs = lateMs;
    m_sinceTick.start();
    m_timer.start();
    m_reload.start();
    Q_EMIT started();
}

void DemoTraffic::stop()
{
    m_stopped = true;
    m_timer.stop();
    m_reload.stop();
    m_sinceTick.invalidate();
}

const Policy* DemoTraffic::policy(const QByteArray& action) const
{
    for (const Policy& p : m_policies)
        if (p.action == action)
            return &p;
    return nullptr;
}

QByteArray DemoTraffic::pickOrdinaryAction() const
{
    // The example mix, plus a small share for every action an operator added since.
    constexpr int kNewActionWeight = 5;
    QList<QPair<QByteArray, int>> weights;
    int total = 0;
    for (const Policy& p : m_policies) {
        int weight = kNewActionWeight;
        for (const Mix& mix : kMix)
            if (p.action == mix.action)
                weight = mix.weight;
        weights.append({p.action, weight});
        total += weight;
    }
    if (total == 0)
        return QByteArray();
    int pick = QRandomGenerator::global()->bounded(total);
    for (const auto& [action, weight] : weights) {
        if (pick < weight)
            return action;
        pick -= weight;
    }
    return weights.last().first;
}

std::map<QByteArray, DemoRate> DemoTraffic::steadyRates() const
{
    const double ticks = 1000.0 / double(m_options.tick.count()); // a second's
    std::map<QByteArray, DemoRate> rates;
    int weights = 0;
    for (const Mix& mix : kMix)
        weights += policy(mix.action) ? mix.weight : 0;
    const double clicks = m_options.ordinaryUsers / 5.0; // a click every five seconds each
    for (const Mix& mix : kMix)
        if (policy(mix.action))
            rates[mix.action].hits += clicks * mix.weight / weights;
    for (const Abuser& abuser : kAbusers) {
        const Policy* p = policy(abuser.action);
        if (!p || p->windows.empty())
            continue;
        // Over the limit within seconds: refused from then on, all of it once banned, else
        // all but what the tightest window lets through.
        double allowed = 0;
        if (!p->hasBan()) {
            allowed = 1e9;
            for (const WindowLimit& window : p->windows)
                allowed = std::min(allowed, double(window.limit) * 1000 / double(window.windowMs));
        }
        const double sent = abuser.hitsPerTick * ticks;
        rates[abuser.action].hits += sent;
        rates[abuser.action].denied += std::max(0.0, sent - allowed);
    }
    if (m_options.overriddenUsers) { // within their overrides: never denied
        rates["search"].hits += ticks / 40;
        rates["api"].hits += ticks;
    }
    return rates;
}

void DemoTraffic::tick()
{
    if (m_inFlight > m_options.maxInFlight)
        return;
    ++m_tickCount;
    // A tick that comes late (the GUI thread building a window) sends the ticks it missed, up
    // to two seconds' worth: the charts show the rate the seeded history leads up to, no dip.
    const double tickMs = double(m_options.tick.count());
    const double due =
        m_sinceTick.isValid()
            ? std::clamp(double(m_sinceTick.restart() + std::exchange(m_backlogMs, 0)) / tickMs,
                         1.0, 2000.0 / tickMs)
            : 1.0;
    if (!m_sinceTick.isValid())
        m_sinceTick.start();
    const int budget = qMax(1, int(m_options.maxHitsPerSecond * tickMs * due / 1000));
    int sent = 0;
    QRandomGenerator* random = QRandomGenerator::global();

    // Abusers: relentless from the first tick, as the seeded history has them.
    for (const Abuser& abuser : kAbusers) {
        if (const Policy* p = policy(abuser.action))
            for (int i = 0; i < qRound(abuser.hitsPerTick * due) && sent < budget; ++i, ++sent)
                hit(*p, abuser.user);
    }

    // The overridden users: the trial customer searches above the policy's limit but within
    // its override (15 a minute), the exempt load test hammers the API and is never denied.
    const bool overridden = m_options.overriddenUsers;
    const Policy* search = overridden && m_tickCount % 40 == 0 ? policy("search") : nullptr;
    if (search && sent++ < budget)
        hit(*search, DemoOverrides::trialUser());
    const Policy* api = overridden ? policy("api") : nullptr;
    if (api && sent++ < budget)
        hit(*api, DemoOverrides::exemptUser());

    // Ordinary users: about one click every five seconds each.
    const double perTick = m_options.ordinaryUsers * tickMs * due / 5000.0;
    int clicks = int(perTick) + (random->generateDouble() < perTick - int(perTick) ? 1 : 0);
    for (; clicks > 0 && sent < budget; --clicks, ++sent) {
        const QByteArray action = pickOrdinaryAction();
        const QByteArray user =
            QByteArrayLiteral("user-") +
            QByteArray::number(random->bounded(m_options.ordinaryUsers) + 1).rightJustified(4, '0');
        if (const Policy* p = policy(action))
            hit(*p, user);
    }
}

void DemoTraffic::hit(const Policy& policy, const QByteArray& user)
{
    ++m_inFlight;
    ++m_hitsSent;
    m_limiter->hit(policy, user, 0, this, [this](const Result<HitResult>&) { --m_inFlight; });
}

} // namespace tollgate
