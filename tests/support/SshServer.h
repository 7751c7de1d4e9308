#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace tollgate::test {

// A private OpenSSH server for one test: /usr/sbin/sshd -D with a config of its own, as the
// current user, on a free loopback port, with a generated host key and a generated user key
// (the only one it accepts), everything in its own temporary directory. The machine's sshd and
// its users are never touched. Stopped (with every session it forked) by the destructor.
class SshServer
{
public:
    SshServer();
    ~SshServer();
    SshServer(const SshServer&) = delete;
    SshServer& operator=(const SshServer&) = delete;

    // Generates the keys, starts sshd and waits (10 s at most) until it listens.
    bool start();
    // SIGTERM to sshd and its sessions (SIGKILL with `crash`); waits until they are gone.
    void stop(bool crash = false);
    // Starts again after stop(): the same port, keys and accepted users.
    bool restart();
    // Accepts this public key (a .pub file) too.
    bool authorize(const QString& publicKeyFile);

    quint16 port() const { return m_port; }
    QString host() const { return QStringLiteral("127.0.0.1"); }
    QString dir() const { return m_dir.path(); }
    // The private key sshd accepts (no passphrase) and the login it accepts it for.
    QString userKey() const { return m_dir.filePath(QStringLiteral("user_key")); }
    static QString userName();
    // "[127.0.0.1]:<port> ssh-ed25519 AAAA...": the line known_hosts needs to trust it.
    QString knownHostsLine() const;
    // What sshd logged since start (LogLevel DEBUG1: accepted keys, forwarded channels).
    QByteArray log() const;
    QString errorString() const { return m_error; }

    // /usr/sbin/sshd, or empty when openssh-server is not installed.
    static QString sshdPath();
    // Makes a new ed25519 key pair (path, path.pub), with a passphrase when one is given.
    static bool generateKey(const QString& path, QString* error, const QString& passphrase = {});

private:
    bool writeConfig();
    bool launch();
    void signalAll(int signal);

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
    QString m_error;
};

// The client side of a test: an ssh config (given to Tollgate as SshOptions::configFile) and a
// known_hosts in a temporary directory, so that the user's own ~/.ssh is never read or written.
class SshClientConfig
{
public:
    SshClientConfig();

    // "Host <alias>" reaching `server` as its user with `identity` (default: its user key),
    // plus any extra lines ("ProxyJump jump").
    void addHost(const QString& alias, const SshServer& server, const QStringList& extra = {},
                 const QString& identity = {});
    // Adds a known_hosts line (SshServer::knownHostsLine(), or a forged one).
    void trust(const QString& knownHostsLine);
    // Writes both files; false (with a warning) when it cannot.
    bool write();

    QString configFile() const { return m_dir.filePath(QStringLiteral("ssh_config")); }
    QString knownHostsFile() const { return m_dir.filePath(QStringLiteral("known_hosts")); }
    QString dir() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir;
    QStringList m_hosts;
    QStringList m_known;
};

} // namespace tollgate::test
