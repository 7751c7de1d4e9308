#pragma once

#include "app/demo/DemoServer.h"

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <array>
#include <memory>

namespace tollgate {

/// A private Twemproxy pool for `tollgate --demo --twemproxy`: two DemoServers behind
/// Debian's nutcracker (loopback, free ports, its stats port too), configured as Tollgate needs
/// (hash_tag "{}") and as the deployments it serves run it (auto_eject_hosts, one failure
/// ejects). Now and then one backend is paused for a few seconds, so the proxy ejects it and
/// takes it back while the console watches. Stopped by stop() or the destructor; on Linux the
/// kernel also kills every process if this one dies.
class DemoPool : public QObject
{
    Q_OBJECT
public:
    static constexpr int kBackends = 2;
    static constexpr int kRetryTimeoutMs = 2000; // nutcracker's server_retry_timeout

    explicit DemoPool(QObject* parent = nullptr);
    ~DemoPool() override;

    /// Starts the backends and nutcracker and waits (blocking, 10 s at most) until a PING
    /// through the proxy and the stats port answer. NotFound with install instructions when
    /// nutcracker is not installed.
    Status start();
    void stop();

    /// Pauses backend 1, 2, 1, ... for `pauseMs` every `periodMs`, from `periodMs` on.
    void startEjections(int periodMs, int pauseMs);
    int ejectionsStarted() const { return m_ejections; }

    /// redis+twemproxy://127.0.0.1:<port>?config=<yml>&pool=tollgate&stats=127.0.0.1:<port>
    QString url() const;
    quint16 port() const { return m_port; }
    quint16 statsPort() const { return m_statsPort; }
    const DemoServer& backend(int i) const { return *m_backends[size_t(i)]; }

    /// nutcracker on PATH or in /usr/sbin; empty when not installed.
    static QString nutcrackerPath();

private:
    Status launch(const QString& program);
    bool answers() const;
    QString configPath() const;
    void pauseNext();

    std::array<std::unique_ptr<DemoServer>, kBackends> m_backends;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
    quint16 m_statsPort = 0;
    QTimer m_eject;
    int m_pauseMs = 0;
    int m_ejections = 0;
};

} // namespace tollgate
