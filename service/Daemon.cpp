#include "service/Daemon.h"

#include "core/http/ListenAddress.h"
#include "core/metrics/Exposition.h"
#include "core/metrics/ScrapeCollector.h"
#include "core/policies/PolicyPlan.h"
#include "core/registry/ServiceRegistry.h"
#include "service/decide/Decider.h"
#include "service/grpc/GrpcServer.h"
#include "service/grpc/RlsService.h"
#include "service/http/HttpFront.h"
#include "service/metrics/ServiceMetrics.h"
#include "service/rlqs/RlqsService.h"
#include "tollgate/Blocking.h"
#include "tollgate/Client.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"
#include "tollgate/RefusalCache.h"
#include "tollgate/Version.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHostInfo>
#include <QRandomGenerator>
#include <QHostAddress>
#include <QThread>
#include <chrono>

namespace tollgate::service {

namespace {

qint64 steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

QString planLine(const PolicyPlan& plan)
{
    QStringList changes;
    for (const PolicyPlanStep& step : plan.steps) {
        const char* verb = step.kind == PolicyPlanStep::Kind::Create   ? "create"
                           : step.kind == PolicyPlanStep::Kind::Change ? "change"
                                                                       : "delete";
        changes << QStringLiteral("%1 %2").arg(QLatin1String(verb),
                                               QString::fromUtf8(step.policy.action));
    }
    return QStringLiteral("policies: %1 to write (%2), %3 unchanged")
        .arg(plan.steps.size())
        .arg(changes.isEmpty() ? QStringLiteral("none") : changes.join(QStringLiteral(", ")))
        .arg(plan.unchanged);
}

} // namespace

Daemon::Daemon(DaemonOptions options, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_schema(m_options.prefix)
{
    m_reloadSoon.setSingleShot(true);
    m_reloadSoon.setInterval(300); // editors write a file in several steps
    connect(&m_reloadSoon, &QTimer::timeout, this, [this] { reload(false); });
}

Daemon::~Daemon()
{
    if (m_grpc)
        m_grpc->stop(500);
}

quint16 Daemon::grpcPort() const
{
    return m_grpc ? m_grpc->port() : 0;
}

quint16 Daemon::httpPort() const
{
    return m_http ? m_http->port() : 0;
}

bool Daemon::isReady(QString* why) const
{
    // Redis answered the last PING, and lately (a PING left hanging counts as no answer).
    const bool redisAnswers = m_lastRedisError.isEmpty() && m_lastPongMs > 0 &&
                              steadyMs() - m_lastPongMs < 3000;
    const bool policyDecides = m_options.onError && *m_options.onError != FailureMode::Report;
    if (redisAnswers || policyDecides)
        return true;
    if (why)
        *why = m_lastRedisError.isEmpty() ? QStringLiteral("Redis has not answered yet")
                                          : QStringLiteral("Redis does not answer: ") +
                                                m_lastRedisError;
    return false;
}

Status Daemon::start()
{
    auto loaded = loadServiceConfig(m_options.configPath);
    if (!loaded)
        return loaded.error();
    auto config = std::make_shared<const ServiceConfig>(std::move(*loaded));
    for (const QString& note : config->notes)
        Q_EMIT log(QStringLiteral("note: ") + note);
    if (auto quota = loadQuotaSettings(*config); !quota)
        return quota.error();

    ConnectionOptions connection = m_options.connection;
    connection.clientName = QStringLiteral("tollgated");
    m_client = std::make_unique<Client>(connection);
    m_cache = std::make_shared<RefusalCache>(m_options.cacheBytes);
    m_feed = std::make_unique<RefusalCacheFeed>(connection, m_schema, m_cache);
    connect(m_feed.get(), &RefusalCacheFeed::eventReceived, this, [this](const LimitEvent& event) {
        if (event.event == "policy")
            refreshPolicies();
    });
    connect(m_feed.get(), &RefusalCacheFeed::subscribed, this, &Daemon::refreshPolicies);

    Limiter limiter(m_client.get(), m_schema);
    limiter.setRecordStats(true); // the console's Dashboard counts the service's hits
    if (m_options.onError)
        limiter.setFailureMode(*m_options.onError);
    if (m_options.cacheBytes > 0)
        limiter.setRefusalCache(m_cache);
    m_policies = std::make_shared<PolicyBook>();
    m_policies->replace(config->policies, {});
    m_metrics = std::make_shared<ServiceMetrics>();
    m_metrics->recordReload(true, config->digest);
    m_decider = std::make_shared<Decider>(limiter, config, m_policies);
    m_decider->setDeadline(
        connection.commandTimeout, m_options.onError,
        [metrics = m_metrics](double late) { metrics->recordDeadlineAnswer(late); });
    m_decider->setUnmatchedCounter(
        [metrics = m_metrics](const QByteArray& domain) { metrics->recordUnmatched(domain); });
    m_decider->setDescriptorCounter(
        [metrics = m_metrics](const QByteArray& domain, const QByteArray& name, const char* code) {
            metrics->recordDescriptor(domain, name, code);
        });

    if (!m_options.grpcListen.isEmpty()) {
        m_rls = std::make_unique<RlsService>(m_decider, m_metrics);
        m_grpc = std::make_unique<GrpcServer>();
        m_rlqs = std::make_unique<RlqsService>(m_client.get(), m_schema, m_decider, m_policies);
        m_grpc->addService({m_rlqs.get(),
                            [this](grpc::ServerCompletionQueue* queue) { m_rlqs->serveOn(queue); },
                            [this] { m_rlqs->stop(); }, [this] { return m_rlqs->idle(); }});
        connect(m_feed.get(), &RefusalCacheFeed::eventReceived, this,
                [this](const LimitEvent& event) { m_rlqs->onEvent(event); });
        // Half the cores by default: the other half is for the Redis I/O, the kernel's network
        // work and whatever shares the host (docs/performance.md measures 1, 2 and 4 on two).
        const int threads = m_options.grpcThreads > 0
                                ? m_options.grpcThreads
                                : std::max(QThread::idealThreadCount() / 2, 1);
        if (Status ok = m_grpc->start(m_options.grpcListen, m_rls.get(), threads); !ok)
            return ok;
    }
    if (!m_options.httpListen.isEmpty()) {
        auto address = parseListenAddress(m_options.httpListen);
        if (!address)
            return Error{ErrorKind::InvalidInput, QStringLiteral("--http: ") + address.error().message};
        m_scrape = std::make_unique<ScrapeCollector>(m_client.get(), m_schema);
        HttpFront::Hooks hooks;
        hooks.ready = [this](QString* why) { return isReady(why); };
        hooks.configState = [this] {
            return m_lastConfigError.isEmpty()
                       ? QStringLiteral("config: %1 (%2)")
                             .arg(m_decider->config()->files.empty()
                                      ? QString()
                                      : m_decider->config()->files.front(),
                                  QString::fromLatin1(m_decider->config()->digest.left(12)))
                       : QStringLiteral("config: the last reload failed, the previous "
                                        "configuration runs: ") +
                             m_lastConfigError;
        };
        hooks.exporterMetrics = [this](ExpositionFormat format,
                                       std::function<void(QByteArray)> done) {
            m_scrape->collect([format, done](MetricsSnapshot snapshot,
                                             std::vector<ScrapeProblem>) {
                done(renderMetrics(snapshot, format));
            });
        };
        // A thread per core: HTTP decisions are read, matched and written on them, so one
        // saturated thread is not the endpoint's limit.
        const int httpThreads = m_options.httpThreads > 0 ? m_options.httpThreads
                                                          : std::max(QThread::idealThreadCount(), 1);
        m_http = std::make_unique<HttpFront>(m_decider, m_policies, m_metrics, hooks,
                                             m_options.httpMaxConnections, httpThreads);
        if (Status ok = m_http->listen(address->first, address->second); !ok)
            return ok;
    }

    m_client->open();
    m_feed->start();
    connect(&m_pingTimer, &QTimer::timeout, this, &Daemon::ping);
    m_pingTimer.start(1000);
    connect(&m_policyTimer, &QTimer::timeout, this, &Daemon::refreshPolicies);
    m_policyTimer.start(30'000); // besides the events: a policy event lost is seen within this
    ping();
    applyPolicies(config);
    watchFiles();
    m_startedMs = QDateTime::currentMSecsSinceEpoch();
    if (m_options.announce) {
        m_registry = std::make_unique<ServiceRegistry>(m_client.get(), m_schema);
        m_instanceId = QHostInfo::localHostName().toUtf8() + ':' +
                       QByteArray::number(QCoreApplication::applicationPid()) + ':' +
                       QByteArray::number(QRandomGenerator::global()->generate(), 16)
                           .rightJustified(8, '0');
        connect(&m_announceTimer, &QTimer::timeout, this, &Daemon::announce);
        m_announceTimer.start(5000);
        announce();
    }
    Q_EMIT log(QStringLiteral("serving: gRPC %1, HTTP %2; configuration %3 (%4 policies)")
                   .arg(m_grpc ? QStringLiteral("port %1").arg(m_grpc->port()) : QStringLiteral("off"),
                        m_http ? QStringLiteral("port %1").arg(m_http->port()) : QStringLiteral("off"),
                        QString::fromLatin1(config->digest.left(12)))
                   .arg(config->policies.size()));
    return Unit{};
}

void Daemon::ping()
{
    if (m_grpc)
        m_grpc->setServing(isReady()); // also when the last PING is still unanswered
    m_client->execute({QByteArrayLiteral("PING")}, this, [this](const Result<Reply>& reply) {
        const bool was = isReady();
        if (reply) {
            m_lastPongMs = steadyMs();
            m_lastRedisError.clear();
        } else {
            m_lastRedisError = reply.error().toString();
        }
        const bool now = isReady();
        if (m_grpc)
            m_grpc->setServing(now);
        if (was != now) {
            Q_EMIT log(now ? QStringLiteral("ready") : QStringLiteral("not ready: ") + m_lastRedisError);
            // The registry hears it now, not at the next announcement: a new instance is listed
            // ready as soon as its first PING is answered.
            if (m_registry)
                announce();
        }
    });
}

void Daemon::announce()
{
    const qint64 now = steadyMs();
    const qint64 decisions = m_metrics->decisionsTotal();
    ServiceInstance self;
    self.id = m_instanceId;
    self.host = QHostInfo::localHostName();
    self.pid = QCoreApplication::applicationPid();
    self.version = QString::fromLatin1(kVersion);
    self.configFile = QFileInfo(m_options.configPath).absoluteFilePath();
    self.configDigest = QString::fromLatin1(m_decider->config()->digest.left(12));
    const auto address = [](const QString& listen, quint16 port) -> QString {
        return listen.left(listen.lastIndexOf(QLatin1Char(':'))) + QLatin1Char(':') +
               QString::number(port);
    };
    if (m_grpc)
        self.grpcAddress = address(m_options.grpcListen, m_grpc->port());
    if (m_http)
        self.httpAddress = address(m_options.httpListen, m_http->port());
    self.startedMs = m_startedMs;
    self.decisionsTotal = decisions;
    if (m_lastAnnounceMs > 0 && now > m_lastAnnounceMs)
        self.decisionsPerSecond = double(decisions - m_lastDecisions) * 1000.0 / double(now - m_lastAnnounceMs);
    m_lastDecisions = decisions;
    m_lastAnnounceMs = now;
    const RefusalCache::Stats cache = m_cache->stats();
    self.cachedRefusals = cache.entries;
    self.cacheBytes = cache.bytes;
    self.cacheHitsTotal = cache.hits;
    QString why;
    self.ready = isReady(&why);
    self.lastError = !m_lastConfigError.isEmpty() ? QStringLiteral("config: ") + m_lastConfigError
                     : !m_lastRedisError.isEmpty() ? m_lastRedisError
                                                   : QString();
    m_registry->announce(self, this, [this](Result<qint64> done) {
        const QString error = done ? QString() : done.error().toString();
        if (error != m_lastAnnounceError && !error.isEmpty())
            Q_EMIT log(QStringLiteral("not registered in Redis (the console will not list this "
                                      "instance): ") + error);
        m_lastAnnounceError = error;
    });
}

void Daemon::withdraw()
{
    if (!m_registry)
        return;
    m_announceTimer.stop();
    const ServiceRegistry registry(m_client.get(), m_schema);
    const QByteArray id = m_instanceId;
    const Status gone =
        waitFor<Unit>([&](Callback<Unit> done) { registry.withdraw(id, nullptr, done); });
    if (!gone) // it goes stale in 15 s and leaves within 10 minutes instead
        Q_EMIT log(QStringLiteral("could not leave the registry: ") + gone.error().toString());
}

void Daemon::applyPolicies(std::shared_ptr<const ServiceConfig> config, int attempt)
{
    const PolicyStore store(m_client.get(), m_schema);
    store.listAll(this, [this, config, attempt](Result<PolicyListing> listing) {
        if (!listing) {
            Q_EMIT log(QStringLiteral("policies not applied yet (%1); trying again in 2 s")
                           .arg(listing.error().toString()));
            QTimer::singleShot(2000, this, [this, config] { applyPolicies(config); });
            return;
        }
        auto plan = planPolicies(config->policies, *listing, false);
        if (!plan) {
            Q_EMIT log(QStringLiteral("policies not applied: ") + plan.error().message);
            return;
        }
        Q_EMIT log(planLine(*plan));
        if (plan->steps.empty()) { // nothing to write: the listing is what Redis holds
            m_policies->replace(m_decider->config()->policies, listing->policies);
            return;
        }
        auto steps = std::make_shared<std::vector<PolicyPlanStep>>(plan->steps);
        auto next = std::make_shared<std::function<void(size_t)>>();
        *next = [this, steps, next, config, attempt](size_t i) {
            if (i == steps->size()) {
                refreshPolicies(); // the revisions just written
                return;
            }
            Policy policy = (*steps)[i].policy;
            policy.revision = (*steps)[i].revision;
            const PolicyStore store(m_client.get(), m_schema);
            const QString reason = QStringLiteral("tollgated configuration %1")
                                       .arg(QString::fromLatin1(config->digest.left(12)));
            store.save(policy, m_options.actor, reason, this,
                       [this, steps, next, config, attempt, i](Result<qint64> saved) {
                           if (saved) {
                               (*next)(i + 1);
                               return;
                           }
                           // Another instance applied the same file meanwhile: plan again.
                           if (saved.error().kind == ErrorKind::Conflict && attempt < 3) {
                               applyPolicies(config, attempt + 1);
                               return;
                           }
                           Q_EMIT log(QStringLiteral("policy %1 not written: %2")
                                          .arg(QString::fromUtf8((*steps)[i].policy.action),
                                               saved.error().toString()));
                           (*next)(i + 1);
                       });
        };
        (*next)(0);
    });
}

void Daemon::refreshPolicies()
{
    const PolicyStore store(m_client.get(), m_schema);
    store.list(this, [this](Result<std::vector<Policy>> stored) {
        if (!stored)
            return; // the configuration's policies keep deciding meanwhile
        m_policies->replace(m_decider->config()->policies, *stored);
    });
}

void Daemon::reload(bool force)
{
    auto loaded = loadServiceConfig(m_options.configPath);
    watchFiles(); // a file replaced by an editor is a new file to watch
    if (!loaded) {
        m_lastConfigError = loaded.error().message;
        m_metrics->recordReload(false, {});
        Q_EMIT log(QStringLiteral("reload failed, the previous configuration runs: ") +
                   loaded.error().message);
        return;
    }
    auto config = std::make_shared<const ServiceConfig>(std::move(*loaded));
    if (!force && config->digest == m_decider->config()->digest && m_lastConfigError.isEmpty())
        return; // a change of something else in the directory
    m_lastConfigError.clear();
    m_metrics->recordReload(true, config->digest);
    for (const QString& note : config->notes)
        Q_EMIT log(QStringLiteral("note: ") + note);
    m_policies->replace(config->policies, {});
    m_decider->setConfig(config);
    Q_EMIT log(QStringLiteral("reloaded: configuration %1 (%2 policies)")
                   .arg(QString::fromLatin1(config->digest.left(12)))
                   .arg(config->policies.size()));
    applyPolicies(config);
}

void Daemon::watchFiles()
{
    if (!m_watcher) {
        m_watcher = new QFileSystemWatcher(this);
        connect(m_watcher, &QFileSystemWatcher::fileChanged, this, [this] { m_reloadSoon.start(); });
        connect(m_watcher, &QFileSystemWatcher::directoryChanged, this,
                [this] { m_reloadSoon.start(); });
    }
    const QFileInfo info(m_options.configPath);
    QStringList paths{info.absoluteFilePath()};
    if (!info.isDir())
        paths << info.absolutePath(); // a file replaced (renamed over) shows in its directory
    for (const QString& path : paths) {
        if (!m_watcher->files().contains(path) && !m_watcher->directories().contains(path))
            m_watcher->addPath(path);
    }
}

} // namespace tollgate::service
