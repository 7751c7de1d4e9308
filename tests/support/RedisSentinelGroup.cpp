#include "tests/support/RedisSentinelGroup.h"

#include <QDeadlineTimer>
#include <QtTest>

namespace tollgate::test {

namespace {

const int kReadyTimeoutMs = 30000;

// The integer of field `name` in a flat RESP array of fields and values, as raw reply text.
qint64 fieldOf(const QByteArray& reply, const QByteArray& name)
{
    const QByteArray marker = "$" + QByteArray::number(name.size()) + "\r\n" + name + "\r\n";
    const qsizetype at = reply.indexOf(marker);
    if (at < 0)
        return -1;
    const qsizetype value = reply.indexOf("\r\n", at + marker.size()) + 2;
    const qsizetype end = reply.indexOf("\r\n", value);
    return reply.mid(value, end - value).toLongLong();
}

} // namespace

QByteArray roleOf(RedisServer& server)
{
    const QByteArray reply = server.command({QByteArrayLiteral("ROLE")}, 2000);
    // "*3\r\n$6\r\nmaster\r\n..." or "*5\r\n$5\r\nslave\r\n...": the first bulk string.
    const qsizetype first = reply.indexOf("\r\n$");
    if (first < 0)
        return {};
    const qsizetype text = reply.indexOf("\r\n", first + 3) + 2;
    return reply.mid(text, reply.indexOf("\r\n", text) - text);
}

QByteArray RedisSentinelGroup::sentinelConfig(quint16 primaryPort) const
{
    const QByteArray name = masterName().toUtf8();
    return "sentinel monitor " + name + " 127.0.0.1 " + QByteArray::number(primaryPort) +
           " 2\n"
           "sentinel down-after-milliseconds " +
           name +
           " 1000\n"
           "sentinel failover-timeout " +
           name +
           " 3000\n"
           "sentinel parallel-syncs " +
           name + " 1\n";
}

bool RedisSentinelGroup::start(const TlsFiles* tls)
{
    for (int i = 0; i < 2; ++i) {
        m_servers.push_back(std::make_unique<RedisServer>());
        QStringList args;
        if (i == 1)
            args << QStringLiteral("--replicaof") << QStringLiteral("127.0.0.1")
                 << QString::number(m_servers[0]->port());
        if (tls) // a replica dials its primary as a TLS client
            args << QStringLiteral("--tls-replication") << QStringLiteral("yes")
                 << QStringLiteral("--tls-client-cert-file") << tls->clientCert
                 << QStringLiteral("--tls-client-key-file") << tls->clientKey;
        if (!(tls ? m_servers.back()->startTls(*tls, args) : m_servers.back()->start(args))) {
            m_error = QStringLiteral("server %1: ").arg(i) + m_servers.back()->errorString();
            return false;
        }
    }
    m_caFile = tls ? tls->caCert : QString();
    for (int i = 0; i < kSentinels; ++i) {
        m_sentinels.push_back(std::make_unique<RedisServer>());
        if (!m_sentinels.back()->startSentinel(sentinelConfig(m_servers[0]->port()), tls)) {
            m_error = QStringLiteral("sentinel %1: ").arg(i) + m_sentinels.back()->errorString();
            return false;
        }
    }
    return waitUntilWatched();
}

bool RedisSentinelGroup::waitUntilWatched()
{
    const QByteArray name = masterName().toUtf8();
    const QDeadlineTimer deadline(kReadyTimeoutMs);
    while (!deadline.hasExpired()) {
        bool ready = server(1).command({"INFO", "replication"}).contains("master_link_status:up");
        for (auto& sentinel : m_sentinels) {
            const QByteArray master = sentinel->command({"SENTINEL", "MASTER", name}, 2000);
            ready = ready && fieldOf(master, "num-slaves") == 1 &&
                    fieldOf(master, "num-other-sentinels") == kSentinels - 1 &&
                    sentinel->command({"SENTINEL", "REPLICAS", name}, 2000)
                        .contains("master-link-status\r\n$2\r\nok");
        }
        if (ready)
            return true;
        QTest::qWait(200); // the test thread's events (a load of hits) go on
    }
    m_error = QStringLiteral("the sentinels did not see the replica and each other within %1 s; "
                             "the first says: %2\n--- its log ---\n%3")
                  .arg(kReadyTimeoutMs / 1000)
                  .arg(QString::fromUtf8(sentinel(0).command({"SENTINEL", "MASTER", name}, 2000)),
                       QString::fromUtf8(sentinel(0).log().right(2000)));
    return false;
}

void RedisSentinelGroup::stop()
{
    for (auto& sentinel : m_sentinels)
        sentinel->stop();
    for (auto& server : m_servers)
        server->stop();
}

QString RedisSentinelGroup::url(const QString& query) const
{
    QStringList addresses;
    for (const auto& sentinel : m_sentinels)
        addresses << sentinel->host() + QLatin1Char(':') + QString::number(sentinel->port());
    if (!m_caFile.isEmpty())
        return QStringLiteral("rediss+sentinel://") + addresses.join(QLatin1Char(',')) +
               QLatin1Char('/') + masterName() + QStringLiteral("?ca=") + m_caFile + query;
    return QStringLiteral("redis+sentinel://") + addresses.join(QLatin1Char(',')) +
           QLatin1Char('/') + masterName() + query;
}

int RedisSentinelGroup::primaryIndex()
{
    for (auto& sentinel : m_sentinels) {
        if (!sentinel->isRunning())
            continue;
        const QByteArray reply =
            sentinel->command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName().toUtf8()}, 2000);
        for (size_t i = 0; i < m_servers.size(); ++i)
            if (reply.endsWith(
                    QByteArray("\r\n" + QByteArray::number(m_servers[i]->port()) + "\r\n")))
                return int(i);
    }
    return -1;
}

bool RedisSentinelGroup::failover()
{
    for (auto& sentinel : m_sentinels)
        if (sentinel->isRunning() &&
            sentinel->command({"SENTINEL", "FAILOVER", masterName().toUtf8()}) == "+OK\r\n")
            return true;
    return false;
}

bool RedisSentinelGroup::waitForPrimaryOtherThan(int oldPrimary, bool replicaSynced)
{
    const QDeadlineTimer deadline(kReadyTimeoutMs);
    while (!deadline.hasExpired()) {
        const int now = primaryIndex();
        bool agreed = now >= 0 && now != oldPrimary && roleOf(server(now)) == "master";
        for (auto& sentinel : m_sentinels)
            agreed =
                agreed &&
                (!sentinel->isRunning() ||
                 sentinel
                     ->command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName().toUtf8()}, 2000)
                     .endsWith(QByteArray(QByteArray::number(server(now).port()) + "\r\n")));
        if (agreed && replicaSynced && server(oldPrimary).isRunning())
            agreed = server(oldPrimary)
                         .command({"INFO", "replication"})
                         .contains("master_link_status:up");
        if (agreed)
            return true;
        QTest::qWait(100);
    }
    m_error = QStringLiteral("no new primary within %1 s").arg(kReadyTimeoutMs / 1000);
    return false;
}

} // namespace tollgate::test
