#pragma once

#include "tests/support/RedisServer.h"

#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <optional>
#include <vector>

namespace tollgate::test {

// A private Twemproxy pool for one test: Debian's nutcracker in front of 2-3 private
// redis-servers, every one on a free loopback port, with its stats port too (JSON, aggregated
// every statsIntervalMs). Backends can be paused (SIGSTOP: the proxy times out and ejects them
// without a closed socket), resumed, killed and restarted. Stopped by the destructor; nutcracker
// is killed by the kernel if the test process dies first.
class Twemproxy
{
public:
    struct Options
    {
        int backends = 2;
        // "{}" is what Tollgate needs; empty writes no hash_tag line at all.
        QByteArray hashTag = QByteArrayLiteral("{}");
        bool autoEjectHosts = true;
        int serverFailureLimit = 1;
        int serverRetryTimeoutMs = 2000;
        int timeoutMs = 400; // how long the proxy waits for a backend's reply
        int statsIntervalMs = 500;
    };

    Twemproxy() = default;
    ~Twemproxy();
    Twemproxy(const Twemproxy&) = delete;
    Twemproxy& operator=(const Twemproxy&) = delete;

    // Starts the backends, writes nutcracker.yml and starts nutcracker; waits (10 s at most)
    // until the proxy answers PING through every backend and the stats port answers.
    bool start(const Options& options);
    bool start() { return start(Options{}); }
    void stop();

    quint16 port() const { return m_port; }
    quint16 statsPort() const { return m_statsPort; }
    QString host() const { return QStringLiteral("127.0.0.1"); }
    // "127.0.0.1:<port>" of the proxy.
    QString address() const;
    // The pool's name in the YAML file, and the file itself.
    QString poolName() const { return QStringLiteral("tollgate"); }
    QString configPath() const;
    // "127.0.0.1:<port>,127.0.0.1:<port>..." of the backends, in order.
    QString backendList() const;

    int backendCount() const { return int(m_backends.size()); }
    RedisServer& backend(int i) { return *m_backends[size_t(i)]; }
    // The backend's name in the pool ("r1", "r2", ...), as the stats JSON keys it.
    static QString backendName(int i) { return QStringLiteral("r") + QString::number(i + 1); }

    // SIGSTOP / SIGCONT the backend: it stops answering with its sockets open.
    bool pause(int i);
    bool resume(int i);
    // SIGKILL the backend, as in a crash; restart on the same port (an empty data set).
    void killBackend(int i) { backend(i).kill(); }
    bool restartBackend(int i) { return backend(i).restart(); }

    // One command through the proxy on a fresh connection; the raw RESP reply, empty when the
    // proxy closed the connection or did not answer within timeoutMs.
    QByteArray command(const QList<QByteArray>& args, int timeoutMs = 5000) const;
    // The stats port's JSON (empty on failure), and the pool's object in it.
    QJsonObject stats() const;
    QJsonObject poolStats() const;
    // The pool's server_ejects counter (-1 when the stats port did not answer).
    qint64 ejections() const;

    // Which backend holds `key`, -1 when none does.
    int backendHolding(const QByteArray& key);
    // Keys matching `pattern` on backend i (SCAN there, directly; nullopt when it did not
    // answer), and how many keys matching it have no TTL (PTTL -1) on any backend (-1: one did
    // not answer).
    std::optional<QList<QByteArray>> keysOn(int i, const QByteArray& pattern);
    qint64 keysWithoutTtl(const QByteArray& pattern);
    QString errorString() const { return m_error; }
    QByteArray log() const;

    // nutcracker on PATH or in /usr/sbin; empty when not installed.
    static QString nutcrackerPath();

private:
    bool writeConfig(const Options& options);
    bool launch();
    bool waitUntilReady();
    bool fail(const QString& message);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    std::vector<std::unique_ptr<RedisServer>> m_backends;
    quint16 m_port = 0;
    quint16 m_statsPort = 0;
    int m_statsIntervalMs = 500;
    QString m_error;
};

} // namespace tollgate::test
