#pragma once

#include "tests/support/RedisServer.h"

#include <memory>
#include <vector>

namespace tollgate::test {

// A private Sentinel deployment on loopback for one test: a primary, a replica and three
// sentinels watching them as master "tollgate" (quorum 2), each a RedisServer on a free port in
// its own temporary directory. The sentinels decide fast (down-after-milliseconds 1000,
// failover-timeout 3000), so a failover takes a few seconds. Stopped by the destructor.
class RedisSentinelGroup
{
public:
    static constexpr int kSentinels = 3;

    RedisSentinelGroup() = default;
    RedisSentinelGroup(const RedisSentinelGroup&) = delete;
    RedisSentinelGroup& operator=(const RedisSentinelGroup&) = delete;

    // Starts everything and waits (30 s at most) until the replica is in sync and every sentinel
    // knows the replica and the other sentinels: a failover can then be asked for. With `tls`
    // every server and sentinel serves TLS only, replication and the sentinels' links included.
    bool start(const TlsFiles* tls = nullptr);
    void stop();

    QString masterName() const { return QStringLiteral("tollgate"); }
    // "redis+sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,127.0.0.1:<s3>/tollgate" + query; with
    // TLS "rediss+sentinel://...?ca=<the test CA>" (query then starts with '&').
    QString url(const QString& query = {}) const;
    // The data servers: 0 started as the primary, 1 as its replica.
    RedisServer& server(int i) { return *m_servers[size_t(i)]; }
    RedisServer& sentinel(int i) { return *m_sentinels[size_t(i)]; }
    // The data server the sentinels name as primary now (asks the first sentinel that answers),
    // or -1.
    int primaryIndex();
    // SENTINEL FAILOVER through a sentinel; true when it accepted.
    bool failover();
    // Waits (30 s at most, spinning the test thread's event loop) until every sentinel names
    // another server than `oldPrimary` and that one says it is a master; with `replicaSynced` also
    // until its replica (if running) is connected to it again.
    bool waitForPrimaryOtherThan(int oldPrimary, bool replicaSynced = false);
    QString errorString() const { return m_error; }

private:
    bool waitUntilWatched();
    QByteArray sentinelConfig(quint16 primaryPort) const;

    std::vector<std::unique_ptr<RedisServer>> m_servers;
    std::vector<std::unique_ptr<RedisServer>> m_sentinels;
    QString m_caFile; // TLS only
    QString m_error;
};

// The role a server's ROLE reply names ("master", "slave"), empty when it did not answer.
QByteArray roleOf(RedisServer& server);

} // namespace tollgate::test
