#include "app/demo/DemoServer.h"

#include "app/demo/ChildProcess.h"
#include "app/demo/RawCommand.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QStandardPaths>
#include <QTcpServer>
#include <QThread>

#ifdef Q_OS_LINUX
#include <csignal>
#endif

namespace tollgate {

quint16 DemoServer::freePort()
{
    // Bind port 0, read what the kernel picked, release it. A race with another process is
    // possible but rare; callers retry with a new port when the server cannot bind. The
    // port + 10000 must be free too: a cluster node listens there for its bus.
    for (int attempt = 0; attempt < 20; ++attempt) {
        QTcpServer probe;
        QTcpServer bus;
        if (probe.listen(QHostAddress::LocalHost, 0) && probe.serverPort() <= 55535 &&
            bus.listen(QHostAddress::LocalHost, quint16(probe.serverPort() + 10000)))
            return probe.serverPort(); // both closed by the destructors
    }
    return 0;
}

DemoServer::DemoServer() = default;

DemoServer::~DemoServer()
{
    stop();
}

QString DemoServer::redisServerPath()
{
    QString path = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (path.isEmpty())
        path = QStandardPaths::findExecutable(
            QStringLiteral("redis-server"), {QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin"),
                                             QStringLiteral("/usr/local/bin")});
    return path;
}

Status DemoServer::start(const QStringList& extraArgs)
{
    if (isRunning())
        return Unit{};
    const QString program = redisServerPath();
    if (program.isEmpty())
        return Error{ErrorKind::NotFound,
                     QStringLiteral("redis-server not found: install it with "
                                    "`sudo apt install redis-server` or run scripts/setup.sh")};
    Status status = Unit{};
    for (int attempt = 0; attempt < 3; ++attempt) {
        status = launch(program, extraArgs);
        if (status)
            return status;
        stop();
    }
    return status;
}

Status DemoServer::launch(const QString& program, const QStringList& extraArgs)
{
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid())
        return Error{ErrorKind::Io, QStringLiteral("cannot create a temporary directory: %1")
                                        .arg(m_dir->errorString())};
    m_port = freePort();
    if (m_port == 0)
        return Error{ErrorKind::Io, QStringLiteral("no free loopback port")};

    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_dir->filePath(QStringLiteral("redis.log")));
    m_process->setWorkingDirectory(m_dir->path());
    killWithParent(*m_process);
    m_process->start(program,
                     QStringList{QStringLiteral("--port"), QString::number(m_port),
                                 QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                 QStringLiteral("--dir"), m_dir->path(), QStringLiteral("--save"),
                                 QString(), QStringLiteral("--appendonly"), QStringLiteral("no"),
                                 QStringLiteral("--daemonize"), QStringLiteral("no"),
                                 QStringLiteral("--protected-mode"), QStringLiteral("yes")} +
                         extraArgs);
    if (!m_process->waitForStarted(5000))
        return Error{ErrorKind::Io, QStringLiteral("cannot start %1: %2")
                                        .arg(program, m_process->errorString())};
    if (!waitUntilReady())
        return Error{ErrorKind::Timeout,
                     QStringLiteral("redis-server did not answer PING on port %1. Its log:\n%2")
                         .arg(m_port)
                         .arg(logTail())};
    return Unit{};
}

bool DemoServer::waitUntilReady()
{
    const QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired()) {
        if (m_process->state() != QProcess::Running)
            return false;
        if (rawCommand(QStringLiteral("127.0.0.1"), m_port, "PING", 500).startsWith("+PONG"))
            return true;
        QThread::msleep(50);
    }
    return false;
}

QString DemoServer::logTail() const
{
    if (!m_dir)
        return {};
    QFile log(m_dir->filePath(QStringLiteral("redis.log")));
    if (!log.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLocal8Bit(log.readAll().right(2000));
}

void DemoServer::stop()
{
    if (m_process)
        stopChild(*m_process);
    m_process.reset();
    m_dir.reset(); // removes the directory
}

bool DemoServer::isRunning() const
{
    return m_process && m_process->state() == QProcess::Running;
}

bool DemoServer::setPaused(bool paused)
{
#ifdef Q_OS_LINUX
    return isRunning() && ::kill(pid_t(m_process->processId()), paused ? SIGSTOP : SIGCONT) == 0;
#else
    Q_UNUSED(paused);
    return false;
#endif
}

QString DemoServer::dir() const
{
    return m_dir ? m_dir->path() : QString();
}

QString DemoServer::url() const
{
    return QStringLiteral("redis://127.0.0.1:%1").arg(m_port);
}

} // namespace tollgate
