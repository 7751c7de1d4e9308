#include "app/demo/DemoPool.h"

#include "app/demo/ChildProcess.h"
#include "app/demo/RawCommand.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QThread>

namespace tollgate {

namespace {

constexpr int kReadyTimeoutMs = 10'000;
const QString kPoolName = QStringLiteral("tollgate");

// What docs/twemproxy.md recommends, with ejections quick enough to watch.
QByteArray poolConfig(quint16 port, const QList<quint16>& backends)
{
    QByteArray yaml = kPoolName.toUtf8() + ":\n";
    yaml += "  listen: 127.0.0.1:" + QByteArray::number(port) + "\n";
    yaml += "  redis: true\n  hash: fnv1a_64\n  distribution: ketama\n  hash_tag: \"{}\"\n";
    yaml += "  auto_eject_hosts: true\n  server_failure_limit: 1\n";
    yaml += "  server_retry_timeout: " + QByteArray::number(DemoPool::kRetryTimeoutMs) + "\n";
    yaml += "  timeout: 400\n  servers:\n";
    for (int i = 0; i < backends.size(); ++i)
        yaml += "    - 127.0.0.1:" + QByteArray::number(backends[i]) + ":1 r" +
                QByteArray::number(i + 1) + "\n";
    return yaml;
}

} // namespace

DemoPool::DemoPool(QObject* parent) : QObject(parent)
{
    connect(&m_eject, &QTimer::timeout, this, &DemoPool::pauseNext);
}

DemoPool::~DemoPool()
{
    stop();
}

QString DemoPool::nutcrackerPath()
{
    const QString found = QStandardPaths::findExecutable(QStringLiteral("nutcracker"));
    if (!found.isEmpty())
        return found;
    const QString sbin = QStringLiteral("/usr/sbin/nutcracker");
    return QFileInfo(sbin).isExecutable() ? sbin : QString();
}

Status DemoPool::start()
{
    stop();
    const QString program = nutcrackerPath();
    if (program.isEmpty())
        return Error{ErrorKind::NotFound,
                     QStringLiteral("nutcracker not found: install it with "
                                    "`sudo apt install nutcracker` or run scripts/setup.sh")};
    QList<quint16> ports;
    for (auto& backend : m_backends) {
        backend = std::make_unique<DemoServer>();
        if (const Status up = backend->start(); !up) {
            stop();
            return up;
        }
        ports << backend->port();
    }
    Status status = Unit{};
    for (int attempt = 0; attempt < 3; ++attempt) { // a free port taken meanwhile: try others
        m_dir = std::make_unique<QTemporaryDir>();
        m_port = DemoServer::freePort();
        m_statsPort = DemoServer::freePort();
        QFile config(configPath());
        const QByteArray yaml = poolConfig(m_port, ports);
        if (!m_dir->isValid() || m_port == 0 || m_statsPort == 0 || m_port == m_statsPort ||
            !config.open(QIODevice::WriteOnly) || config.write(yaml) != yaml.size()) {
            status = Error{ErrorKind::Io, QStringLiteral("cannot prepare nutcracker's "
                                                         "configuration or ports")};
            continue;
        }
        config.close();
        status = launch(program);
        if (status)
            return status;
        m_process.reset();
    }
    stop();
    return status;
}

Status DemoPool::launch(const QString& program)
{
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_dir->filePath(QStringLiteral("nutcracker.out")));
    killWithParent(*m_process);
    // Its own pid file: Debian's default is under /run, which a user cannot write.
    m_process->start(program,
                     {QStringLiteral("-c"), configPath(), QStringLiteral("-s"),
                      QString::number(m_statsPort), QStringLiteral("-a"),
                      QStringLiteral("127.0.0.1"), QStringLiteral("-i"), QStringLiteral("1000"),
                      QStringLiteral("-p"), m_dir->filePath(QStringLiteral("nutcracker.pid")),
                      QStringLiteral("-o"), m_dir->filePath(QStringLiteral("nutcracker.log"))});
    if (!m_process->waitForStarted(5000))
        return Error{ErrorKind::Io,
                     QStringLiteral("cannot start nutcracker: %1").arg(m_process->errorString())};
    const QDeadlineTimer deadline(kReadyTimeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process->state() != QProcess::Running)
            return Error{ErrorKind::Io, QStringLiteral("nutcracker exited during start-up")};
        if (answers())
            return Unit{};
        QThread::msleep(50);
    }
    return Error{ErrorKind::Timeout, QStringLiteral("nutcracker did not answer on port %1 "
                                                    "within %2 s")
                                         .arg(m_port)
                                         .arg(kReadyTimeoutMs / 1000)};
}

bool DemoPool::answers() const
{
    // PING is answered by a backend through the proxy; the stats port writes and closes.
    // The proxy takes commands as RESP arrays only, not inline.
    if (!rawCommand(QStringLiteral("127.0.0.1"), m_port, "*1\r\n$4\r\nPING", 500)
             .startsWith("+PONG"))
        return false;
    QTcpSocket stats;
    stats.connectToHost(QStringLiteral("127.0.0.1"), m_statsPort);
    return stats.waitForConnected(500) && stats.waitForReadyRead(1500);
}

void DemoPool::stop()
{
    m_eject.stop();
    for (auto& backend : m_backends)
        if (backend)
            backend->setPaused(false); // a stopped process cannot take SIGTERM
    if (m_process)
        stopChild(*m_process);
    m_process.reset();
    for (auto& backend : m_backends)
        backend.reset();
    m_dir.reset();
}

void DemoPool::startEjections(int periodMs, int pauseMs)
{
    m_pauseMs = pauseMs;
    m_eject.start(periodMs);
}

void DemoPool::pauseNext()
{
    const size_t index = size_t(m_ejections % kBackends);
    if (!m_backends[index] || !m_backends[index]->setPaused(true))
        return;
    ++m_ejections;
    QTimer::singleShot(m_pauseMs, this, [this, index] {
        if (m_backends[index]) // not stopped meanwhile
            m_backends[index]->setPaused(false);
    });
}

QString DemoPool::configPath() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("nutcracker.yml")) : QString();
}

QString DemoPool::url() const
{
    return QStringLiteral("redis+twemproxy://127.0.0.1:%1?config=%2&pool=%3&stats=127.0.0.1:%4")
        .arg(m_port)
        .arg(configPath(), kPoolName)
        .arg(m_statsPort);
}

} // namespace tollgate
