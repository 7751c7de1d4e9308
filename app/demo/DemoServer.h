#pragma once

#include "tollgate/Result.h"

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <memory>

namespace tollgate {

/// A private, throw-away redis-server for `tollgate --demo` (and `tollgatectl demo`):
/// loopback only, a free port, its own temporary directory, no persistence
/// (--save "" --appendonly no). Stopped and cleaned up by stop() or the destructor; on Linux
/// the kernel also kills it if this process dies first.
class DemoServer
{
public:
    DemoServer();
    ~DemoServer();
    DemoServer(const DemoServer&) = delete;
    DemoServer& operator=(const DemoServer&) = delete;

    /// Starts redis-server and waits (blocking, 10 s at most) until PING answers.
    /// NotFound with install instructions when redis-server is not installed. `extraArgs` go
    /// after the demo's own, e.g. clusterNodeArguments() for a node of DemoCluster.
    Status start(const QStringList& extraArgs = {});
    /// SIGTERM, then SIGKILL after 3 s; removes the directory. Safe when not running.
    void stop();

    bool isRunning() const;
    /// SIGSTOP (paused) or SIGCONT: a paused server keeps its sockets open and answers nothing,
    /// as a hung server does. False when not running.
    bool setPaused(bool paused);
    quint16 port() const { return m_port; }
    QString dir() const;
    /// "redis://127.0.0.1:<port>"
    QString url() const;

    /// redis-server on PATH, in /usr/bin or /usr/sbin; empty when not installed.
    static QString redisServerPath();
    /// A loopback port free right now whose cluster bus port (+10000) is free too; 0 if none.
    static quint16 freePort();

private:
    Status launch(const QString& program, const QStringList& extraArgs);
    bool waitUntilReady();
    QString logTail() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
};

} // namespace tollgate
