#pragma once

#include "tollgate/ConnectionOptions.h"
#include "tollgate/Result.h"

#include <QObject>
#include <QTemporaryDir>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>

class QProcess;

namespace tollgate {

/// One OpenSSH client in ControlMaster mode (`ssh -N -M -S <control socket>`) and the local
/// forwards it serves, each a unix socket in a private 0700 directory. Blocking: it lives on
/// SshTunnel's own thread, which does nothing else; every method but requestStop() runs there.
class SshSession : public QObject
{
public:
    /// How long the session may take to come up, typing a password or passphrase included.
    static constexpr std::chrono::seconds kStartTimeout{120};

    explicit SshSession(SshOptions options);
    ~SshSession() override;

    /// A unix socket that reaches host:port as the SSH server sees it. Starts the session
    /// when it is not running (first use, or after it ended: the tunnel reconnects with the
    /// Redis connection), then adds the forward to it (`ssh -O forward`) unless it has one.
    /// A refused host key or login is remembered and answered at once from then on: asking
    /// again cannot change the answer, and would prompt again for a password.
    Result<QString> forward(const QString& host, quint16 port);
    /// Ends the client (forwards go with it) and removes the directory.
    void stop();
    /// Any thread: makes a start in progress give up, and forward() fail from now on.
    void requestStop();
    /// The control master's process id; 0 when not running. Any thread.
    qint64 processId() const { return m_pid.load(); }
    /// What ssh wrote on stderr so far (this run). Any thread.
    QByteArray readLog() const;

private:
    Status start();
    bool running();
    void endMaster();
    QString controlPath() const;

    SshOptions m_options;
    std::unique_ptr<QTemporaryDir> m_dir;
    const QString m_logPath;
    std::unique_ptr<QProcess> m_master;
    std::map<QString, QString> m_forwards; // "host:port" -> socket path, of the running master
    int m_sockets = 0;
    std::optional<Error> m_refused;
    std::atomic<qint64> m_pid{0};
    std::atomic<bool> m_stopping{false};
};

} // namespace tollgate
