#pragma once

#include "tests/support/TlsCertificates.h"

#include <QByteArray>
#include <QDeadlineTimer>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <memory>

namespace tollgate::test {

// A private redis-server for one test: loopback only, a free port, its own temporary directory,
// no persistence. It is stopped by the destructor and, on Linux, killed by the kernel if the test
// process dies first (so start it from the test's main thread). Redis semantics are tested against
// this real server, never a mock.
//
// The blocking command() helpers speak raw RESP over their own socket, independent of core's
// client, so tests can set up and inspect state with a client that is not under test.
class RedisServer
{
public:
    RedisServer();
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    // Starts on 127.0.0.1 with a free port and waits (10 s at most) until PING answers.
    // extraArgs are appended to the command line, e.g. {"--requirepass", "secret"}.
    bool start(const QStringList& extraArgs = {});
    // Same, but TLS only: "--port 0 --tls-port <free>" with files.serverCert/serverKey and
    // files.caCert, "--tls-auth-clients optional". command() then talks TLS, trusting
    // files.caCert and presenting files.clientCert.
    bool startTls(const TlsFiles& files, const QStringList& extraArgs = {});
    // A Redis Sentinel instead (redis-server --sentinel): `config` (the "sentinel monitor" lines
    // and the like) is written to sentinel.conf in the directory, which the sentinel rewrites.
    // With `tls`, as startTls(), and it reaches the servers over TLS too (tls-replication).
    bool startSentinel(const QByteArray& config, const TlsFiles* tls = nullptr);
    // SIGTERM, wait up to 5 s, then SIGKILL. Safe to call when not running.
    void stop();
    // SIGKILL, as in a crash; waits until the process is gone.
    void kill();
    // Starts again with the same port, directory and arguments; waits until PING answers.
    bool restart();

    bool isRunning() const;
    // The server's process id (0 when not running), for tests that SIGSTOP it to make Redis
    // stop answering without closing a connection.
    qint64 processId() const;
    quint16 port() const { return m_port; }
    QString host() const { return QStringLiteral("127.0.0.1"); }
    // "redis://127.0.0.1:<port>", or "rediss://..." when started with startTls().
    QString url() const;
    QString dir() const;
    bool isTls() const { return m_tls; }
    // Why the last start()/restart()/command() failed, with the tail of the server log.
    QString errorString() const { return m_error; }
    // The server's stdout/stderr (its log) since the first start.
    QByteArray log() const;

    // Credentials command() and pipeline() send with AUTH before each command; use them when
    // the server was started with --requirepass or ACL users. An empty user means "default".
    void setAuth(const QByteArray& password, const QByteArray& user = {});

    // Sends one command on a fresh blocking connection and returns the raw RESP reply bytes
    // ("+PONG\r\n", ":1\r\n", "$3\r\nfoo\r\n", "-ERR ...\r\n"); empty on I/O failure or timeout.
    QByteArray command(const QList<QByteArray>& args, int timeoutMs = 5000);
    // Sends several commands on one connection; one raw reply per command, or empty on failure.
    QList<QByteArray> pipeline(const QList<QList<QByteArray>>& commands, int timeoutMs = 5000);

    // redis-server on PATH, in /usr/bin or /usr/sbin; empty when not installed.
    static QString redisServerPath();
    // Encodes one command as a RESP array of bulk strings.
    static QByteArray encodeCommand(const QList<QByteArray>& args);
    // A loopback port nothing listens on, whose cluster bus port (+10000) is free too.
    static quint16 freePort();
    // Length of the RESP value starting at offset: 0 while data holds only a prefix of it,
    // -1 when it is malformed.
    static qsizetype replyLength(const QByteArray& data, qsizetype offset = 0);
    // Reads `count` whole replies from `socket` (raw RESP each); empty when the peer closed the
    // connection or the deadline passed first.
    static QList<QByteArray> readReplies(QTcpSocket& socket, qsizetype count,
                                         const QDeadlineTimer& deadline);

private:
    bool startWithArguments(const QStringList& extraArgs, bool tls);
    bool launch();
    bool waitUntilReady();
    QStringList arguments() const;
    QString fail(const QString& message);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    QString m_serverPath;
    QStringList m_extraArgs;
    TlsFiles m_tlsFiles;
    bool m_tls = false;
    QByteArray m_sentinelConfig; // non-empty: a sentinel
    quint16 m_port = 0;
    QByteArray m_authUser;
    QByteArray m_authPassword;
    QString m_error;
};

} // namespace tollgate::test
