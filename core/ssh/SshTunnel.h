#pragma once

#include "core/redis/Endpoint.h"
#include "tollgate/ConnectionOptions.h"
#include "tollgate/Result.h"

#include <QThread>
#include <functional>
#include <memory>

namespace tollgate {

class SshSession;

/// An SSH session that Redis connections go through: every connection with the same
/// SshOptions in this process shares it (shared()), the nodes of a Redis Cluster included, and
/// it ends when the last of them closes. Each server address gets its own forward (a unix
/// socket in a private directory) the first time a connection asks for it, so nothing listens
/// on a TCP port that other users of the machine could use. The slow parts (starting ssh,
/// waiting for a password) run on the tunnel's own thread, never on the caller's.
class SshTunnel : public Tunnel
{
public:
    using Done = Tunnel::Forwarded;

    /// The live tunnel for these options, or a new one (not started yet). Thread-safe.
    static std::shared_ptr<SshTunnel> shared(const SshOptions& options);

    explicit SshTunnel(SshOptions options);
    /// Ends the ssh client and removes the sockets. Blocks for as long as that takes.
    ~SshTunnel() override;
    SshTunnel(const SshTunnel&) = delete;
    SshTunnel& operator=(const SshTunnel&) = delete;

    const SshOptions& options() const { return m_options; }

    /// The path of a local unix socket that reaches host:port as the SSH server sees it,
    /// starting the session first when it is not running (or no longer). `done` runs on the
    /// tunnel's thread; requests are answered in order. Any thread.
    void forward(const QString& host, quint16 port, Done done) override;
    /// "ssh DESTINATION", after the server's address in messages.
    QString via() const override { return QStringLiteral("ssh ") + m_options.destination; }
    /// The same, waiting for the answer: for tools, never on a GUI thread.
    Result<QString> forwardSync(const QString& host, quint16 port);

    /// The ssh client's process id, 0 while none runs. For tests and diagnostics.
    qint64 processId() const;
    /// Why ssh's last forwarded connection failed on the server's side ("connect failed:
    /// Connection refused"), when that is the last thing it said; else empty. Any thread.
    QString lastForwardFailure() const override;

private:
    SshOptions m_options;
    QThread m_thread;
    SshSession* m_session; // lives on m_thread
};

} // namespace tollgate
