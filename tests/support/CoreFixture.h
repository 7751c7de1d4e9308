#pragma once

#include "core/keys/KeyLayout.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/AuditLog.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "tollgate/PolicyStore.h"

#include <QEventLoop>
#include <QObject>
#include <QTimer>
#include <QtTest>
#include <memory>
#include <optional>

namespace tollgate::test {

// Waits (spinning the test thread's event loop) for an asynchronous core call. `start` gets a
// context object living on the test thread and the callback; the result is delivered there.
// When nothing arrives in time, the context is destroyed first, so a late reply is dropped,
// and a Timeout error naming the wait comes back instead.
template <typename T, typename Start>
Result<T> await(Start&& start, int timeoutMs = 10000)
{
    std::optional<Result<T>> out;
    {
        // An event loop that quits on the result (QTest::qWaitFor polls in 10 ms steps, which
        // would dominate tests that make hundreds of calls).
        QEventLoop loop;
        QObject context;
        start(&context, Callback<T>([&out, &loop](Result<T> result) {
                  out.emplace(std::move(result));
                  loop.quit();
              }));
        if (!out) {
            QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
            loop.exec();
        }
    }
    if (!out)
        return Error{ErrorKind::Timeout, QStringLiteral("test: no result within %1 ms").arg(timeoutMs)};
    return std::move(*out);
}

// A private redis-server plus a connected core Client and the services over it, all sharing
// one KeySchema ("tg" prefix). `inspect()` runs a command on a second client, so state checks
// do not go through the client under test.
//
// With TOLLGATE_TEST_CLUSTER=1 in the environment the server is a private three-primary Redis
// Cluster instead, given to the clients by its first node as a user would: the same tests then
// run unchanged against a cluster (ctest registers some of them a second time that way).
class CoreFixture
{
public:
    CoreFixture();
    ~CoreFixture();
    CoreFixture(const CoreFixture&) = delete;
    CoreFixture& operator=(const CoreFixture&) = delete;

    // Starts the server (extra redis-server arguments allowed) and connects both clients.
    bool start(const QStringList& extraArgs = {});
    // A new client for `options` (or the server's URL), opened, waited for until Connected, on
    // the event loop and TCP stream the environment asks for (TransportCheck); else null.
    std::unique_ptr<Client> connect(const ConnectionOptions& options, int timeoutMs = 10000);
    ConnectionOptions options() const;

    // The server, or on a cluster its first node.
    RedisServer& server() { return m_onCluster ? m_cluster.node(0) : m_server; }
    bool onCluster() const { return m_onCluster; }
    Client* client() { return m_client.get(); }
    const KeySchema& schema() const { return m_schema; }
    // The keys as the services choose them on this server (policies move under {:} on a cluster).
    KeyLayout layout() const { return KeyLayout(m_schema, m_onCluster); }
    Limiter& limiter() { return *m_limiter; }
    PolicyStore& policies() { return *m_policies; }
    Moderation& moderation() { return *m_moderation; }
    AuditLog& audit() { return *m_audit; }
    QString errorString() const { return m_error; }

    // Blocking command on the inspection client (from the test thread only).
    Result<Reply> inspect(const Command& args);
    // Shorthands over inspect(); -3 / empty on error.
    qint64 integer(const Command& args);
    QByteArray bytes(const Command& args);
    // Keys on the server, summed over the primaries of a cluster; -3 on error.
    qint64 dbsize();
    // The server's clock (TIME) in epoch ms; 0 on error.
    qint64 serverNowMs();
    qint64 pttl(const QByteArray& key) { return integer({"PTTL", key}); }
    // FLUSHALL between test functions (test set-up only: core never flushes), on every primary.
    bool flush();
    // flush() for tests that kill the server: first starts it again if it is down, and waits
    // (on the event loop) until the fixture's clients are back.
    bool restartAndFlush(int timeoutMs = 10000);
    // `args` on every primary (the one server when standalone), blocking; empty on error.
    std::vector<Result<Reply>> onEveryPrimary(const Command& args);

    // Awaited shorthands over the services.
    Result<qint64> save(const Policy& policy, const QString& actor = QStringLiteral("test"));
    Result<HitResult> hit(const Policy& policy, const QByteArray& user, qint64 cost = 0);
    Result<HitResult> peek(const Policy& policy, const QByteArray& user, qint64 cost = 0);
    // OverrideStore::set, waited for; false, with a warning naming the error, on failure.
    bool setOverride(const OverrideRequest& request);
    Result<std::vector<AuditEntry>> userAudit(const QByteArray& user, int count = 100);

private:
    const bool m_onCluster;
    RedisServer m_server;
    RedisCluster m_cluster;
    KeySchema m_schema;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<Client> m_inspector;
    std::unique_ptr<Limiter> m_limiter;
    std::unique_ptr<PolicyStore> m_policies;
    std::unique_ptr<Moderation> m_moderation;
    std::unique_ptr<AuditLog> m_audit;
    QString m_error;
};

// A policy for tests: one window, fixed_window unless given.
Policy makePolicy(const QByteArray& action, qint64 limit, qint64 windowMs,
                  Algorithm algorithm = Algorithm::FixedWindow);

} // namespace tollgate::test
