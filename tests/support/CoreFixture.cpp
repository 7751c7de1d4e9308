#include "tests/support/CoreFixture.h"

#include "tests/support/TransportCheck.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <future>

namespace tollgate::test {

CoreFixture::CoreFixture() : m_onCluster(qEnvironmentVariableIntValue("TOLLGATE_TEST_CLUSTER") == 1)
{
}

CoreFixture::~CoreFixture()
{
    // Services hold raw Client pointers: drop them before the clients, the clients before the
    // server.
    m_limiter.reset();
    m_policies.reset();
    m_moderation.reset();
    m_audit.reset();
    m_client.reset();
    m_inspector.reset();
}

ConnectionOptions CoreFixture::options() const
{
    auto parsed = ConnectionOptions::fromUrl(m_onCluster ? m_cluster.seedUrl() : m_server.url());
    ConnectionOptions options = parsed ? *parsed : ConnectionOptions{};
    options.reconnectMinDelay = std::chrono::milliseconds(20);
    options.reconnectMaxDelay = std::chrono::milliseconds(200);
    return options;
}

std::unique_ptr<Client> CoreFixture::connect(const ConnectionOptions& options, int timeoutMs)
{
    auto client = std::make_unique<Client>(options);
    client->open();
    QElapsedTimer timer;
    timer.start();
    while (client->state() != ConnectionState::Connected && timer.elapsed() < timeoutMs)
        QTest::qWait(5);
    if (client->state() != ConnectionState::Connected) {
        m_error = QStringLiteral("client did not connect to %1: %2")
                      .arg(options.endpoint(), client->lastError().toString());
        return nullptr;
    }
    // Every suite on the fixture runs on the loop and stream asked for, or not at all.
    const QString mismatch = transportMismatch(*client);
    if (!mismatch.isEmpty()) {
        m_error = mismatch;
        return nullptr;
    }
    return client;
}

bool CoreFixture::start(const QStringList& extraArgs)
{
    if (m_onCluster) {
        if (!extraArgs.isEmpty() || !m_cluster.start(3, 0)) {
            m_error = extraArgs.isEmpty() ? m_cluster.errorString()
                                          : QStringLiteral("server arguments on a cluster");
            return false;
        }
    } else if (!m_server.start(extraArgs)) {
        m_error = m_server.errorString();
        return false;
    }
    m_client = connect(options());
    m_inspector = connect(options());
    if (!m_client || !m_inspector)
        return false;
    if (m_onCluster &&
        !QTest::qWaitFor([&] { return m_client->isCluster() && m_inspector->isCluster(); })) {
        m_error = QStringLiteral("the clients did not see a cluster");
        return false;
    }
    m_limiter = std::make_unique<Limiter>(m_client.get(), m_schema);
    m_policies = std::make_unique<PolicyStore>(m_client.get(), m_schema);
    m_moderation = std::make_unique<Moderation>(m_client.get(), m_schema);
    m_audit = std::make_unique<AuditLog>(m_client.get(), m_schema);
    return true;
}

Result<Reply> CoreFixture::inspect(const Command& args)
{
    return m_inspector->executeSync(args);
}

qint64 CoreFixture::serverNowMs()
{
    const auto time = inspect({"TIME"});
    if (!time || time->elements.size() != 2)
        return 0;
    return time->elements[0].toInteger().value_or(0) * 1000 +
           time->elements[1].toInteger().value_or(0) / 1000;
}

qint64 CoreFixture::integer(const Command& args)
{
    auto reply = inspect(args);
    if (!reply)
        return -3;
    return reply->toInteger().value_or(-3);
}

QByteArray CoreFixture::bytes(const Command& args)
{
    auto reply = inspect(args);
    return reply ? reply->toBytes() : QByteArray();
}

std::vector<Result<Reply>> CoreFixture::onEveryPrimary(const Command& args)
{
    auto promise = std::make_shared<std::promise<std::vector<Result<Reply>>>>();
    auto future = promise->get_future();
    m_inspector->executeOnEveryPrimary(args, nullptr, [promise](std::vector<Result<Reply>> all) {
        promise->set_value(std::move(all));
    });
    if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
        return {};
    return future.get();
}

bool CoreFixture::flush()
{
    const auto replies = onEveryPrimary({"FLUSHALL"});
    for (const auto& reply : replies)
        if (!reply) {
            m_error = reply.error().toString();
            return false;
        }
    if (replies.empty())
        m_error = QStringLiteral("FLUSHALL got no answer");
    return !replies.empty();
}

bool CoreFixture::restartAndFlush(int timeoutMs)
{
    if (!server().isRunning() && !server().restart()) {
        m_error = server().errorString();
        return false;
    }
    // The clients reconnect on their own schedule.
    QElapsedTimer clock;
    clock.start();
    while (!(m_client->state() == ConnectionState::Connected && flush())) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

qint64 CoreFixture::dbsize()
{
    const auto replies = onEveryPrimary({"DBSIZE"});
    qint64 keys = 0;
    for (const auto& reply : replies) {
        if (!reply || !reply->toInteger())
            return -3;
        keys += *reply->toInteger();
    }
    return replies.empty() ? -3 : keys;
}

Result<qint64> CoreFixture::save(const Policy& policy, const QString& actor)
{
    return await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_policies->save(policy, actor, context, std::move(done));
    });
}

Result<HitResult> CoreFixture::hit(const Policy& policy, const QByteArray& user, qint64 cost)
{
    return await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        m_limiter->hit(policy, user, cost, context, std::move(done));
    });
}

Result<HitResult> CoreFixture::peek(const Policy& policy, const QByteArray& user, qint64 cost)
{
    return await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        m_limiter->peek(policy, user, cost, context, std::move(done));
    });
}

bool CoreFixture::setOverride(const OverrideRequest& request)
{
    const OverrideStore store(m_client.get(), m_schema);
    const auto stored = await<Override>(
        [&](QObject* context, Callback<Override> done) { store.set(request, context, std::move(done)); });
    if (!stored)
        qWarning() << stored.error().toString();
    return bool(stored);
}

Result<std::vector<AuditEntry>> CoreFixture::userAudit(const QByteArray& user, int count)
{
    return await<std::vector<AuditEntry>>(
        [&](QObject* context, Callback<std::vector<AuditEntry>> done) {
            m_audit->latest(user, count, context, std::move(done));
        });
}

Policy makePolicy(const QByteArray& action, qint64 limit, qint64 windowMs, Algorithm algorithm)
{
    Policy policy;
    policy.action = action;
    policy.algorithm = algorithm;
    policy.windows = {{limit, windowMs}};
    return policy;
}

} // namespace tollgate::test
