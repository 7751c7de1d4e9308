#include "tests/support/Twemproxy.h"

#include "app/demo/DemoPool.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QJsonDocument>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QDir>

#include <csignal>
#include <sys/prctl.h>

namespace tollgate::test {

namespace {

const int kReadyTimeoutMs = 10000;
const int kStopTimeoutMs = 5000;
const int kPortAttempts = 10;

} // namespace

Twemproxy::~Twemproxy()
{
    stop();
}

QString Twemproxy::nutcrackerPath()
{
    return DemoPool::nutcrackerPath(); // the demo looks for it where the tests do
}

bool Twemproxy::start(const Options& options)
{
    m_error.clear();
    if (nutcrackerPath().isEmpty())
        return fail(QStringLiteral("nutcracker not found: run scripts/setup.sh"));
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                            QStringLiteral("/tollgate-twemproxy-XXXXXX"));
    if (!m_dir->isValid())
        return fail(QStringLiteral("cannot create a temporary directory"));
    m_backends.clear();
    for (int i = 0; i < options.backends; ++i) {
        auto server = std::make_unique<RedisServer>();
        if (!server->start())
            return fail(QStringLiteral("backend ") + backendName(i) + QStringLiteral(": ") +
                        server->errorString());
        m_backends.push_back(std::move(server));
    }
    m_statsIntervalMs = options.statsIntervalMs;
    // A probed port may be taken before nutcracker binds it: try others then.
    for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
        m_port = RedisServer::freePort();
        m_statsPort = RedisServer::freePort();
        if (m_port == 0 || m_statsPort == 0 || m_port == m_statsPort)
            continue;
        if (writeConfig(options) && launch() && waitUntilReady())
            return true;
        const bool portTaken = log().contains("Address already in use");
        if (m_process) {
            m_process->kill();
            m_process->waitForFinished(kStopTimeoutMs);
            m_process.reset();
        }
        if (!portTaken)
            return false;
    }
    return fail(QStringLiteral("no free loopback ports for nutcracker"));
}

bool Twemproxy::writeConfig(const Options& options)
{
    QByteArray yaml = poolName().toUtf8() + ":\n";
    yaml += "  listen: 127.0.0.1:" + QByteArray::number(m_port) + "\n";
    yaml += "  hash: fnv1a_64\n  distribution: ketama\n";
    if (!options.hashTag.isEmpty())
        yaml += "  hash_tag: \"" + options.hashTag + "\"\n";
    yaml += "  auto_eject_hosts: " + QByteArray(options.autoEjectHosts ? "true" : "false") + "\n";
    yaml += "  server_failure_limit: " + QByteArray::number(options.serverFailureLimit) + "\n";
    yaml += "  server_retry_timeout: " + QByteArray::number(options.serverRetryTimeoutMs) + "\n";
    yaml += "  timeout: " + QByteArray::number(options.timeoutMs) + "\n";
    yaml += "  redis: true\n  servers:\n";
    for (int i = 0; i < backendCount(); ++i)
        yaml += "    - 127.0.0.1:" + QByteArray::number(backend(i).port()) + ":1 " +
                backendName(i).toUtf8() + "\n";
    QFile file(configPath());
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(yaml) != yaml.size())
        return fail(QStringLiteral("cannot write ") + configPath());
    return true;
}

bool Twemproxy::launch()
{
    m_process = std::make_unique<QProcess>();
    m_process->setProgram(nutcrackerPath());
    m_process->setArguments({QStringLiteral("-c"), configPath(), QStringLiteral("-s"),
                             QString::number(m_statsPort), QStringLiteral("-a"), host(),
                             QStringLiteral("-i"), QString::number(m_statsIntervalMs),
                             QStringLiteral("-p"), m_dir->filePath(QStringLiteral("nutcracker.pid")),
                             QStringLiteral("-o"), m_dir->filePath(QStringLiteral("nutcracker.log"))});
    m_process->setWorkingDirectory(m_dir->path());
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_dir->filePath(QStringLiteral("stdout.log")));
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m_process->start();
    if (!m_process->waitForStarted(kStopTimeoutMs))
        return fail(QStringLiteral("cannot start nutcracker: ") + m_process->errorString());
    return true;
}

bool Twemproxy::waitUntilReady()
{
    const QDeadlineTimer deadline(kReadyTimeoutMs);
    while (!deadline.hasExpired()) {
        if (m_process->waitForFinished(50) || m_process->state() == QProcess::NotRunning)
            return fail(QStringLiteral("nutcracker exited during start-up (exit code ") +
                        QString::number(m_process->exitCode()) + QLatin1Char(')'));
        // PING is answered by a backend: the proxy forwards it.
        if (command({QByteArrayLiteral("PING")}, 500) == "+PONG\r\n" && !stats().isEmpty())
            return true;
    }
    return fail(QStringLiteral("nutcracker did not answer within ") +
                QString::number(kReadyTimeoutMs / 1000) + QStringLiteral(" s"));
}

void Twemproxy::stop()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(kStopTimeoutMs)) {
            m_process->kill();
            m_process->waitForFinished(kStopTimeoutMs);
        }
    }
    m_process.reset();
    for (int i = 0; i < backendCount(); ++i)
        resume(i); // a stopped process ignores SIGTERM until it runs again
    m_backends.clear();
}

QString Twemproxy::address() const
{
    return host() + QLatin1Char(':') + QString::number(m_port);
}

QString Twemproxy::configPath() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("nutcracker.yml")) : QString();
}

QString Twemproxy::backendList() const
{
    QStringList list;
    for (const auto& server : m_backends)
        list << server->host() + QLatin1Char(':') + QString::number(server->port());
    return list.join(QLatin1Char(','));
}

bool Twemproxy::pause(int i)
{
    const qint64 pid = backend(i).processId();
    return pid > 0 && ::kill(pid_t(pid), SIGSTOP) == 0;
}

bool Twemproxy::resume(int i)
{
    const qint64 pid = backend(i).processId();
    return pid > 0 && ::kill(pid_t(pid), SIGCONT) == 0;
}

QByteArray Twemproxy::command(const QList<QByteArray>& args, int timeoutMs) const
{
    const QDeadlineTimer deadline(timeoutMs);
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(host()), m_port);
    if (!socket.waitForConnected(int(deadline.remainingTime())))
        return {};
    socket.write(RedisServer::encodeCommand(args));
    return RedisServer::readReplies(socket, 1, deadline).value(0);
}

QJsonObject Twemproxy::stats() const
{
    // The stats port writes one JSON document and closes the connection.
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(host()), m_statsPort);
    if (!socket.waitForConnected(1000))
        return {};
    QByteArray json;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(1000))
        json += socket.readAll();
    json += socket.readAll();
    return QJsonDocument::fromJson(json).object();
}

QJsonObject Twemproxy::poolStats() const
{
    return stats().value(poolName()).toObject();
}

qint64 Twemproxy::ejections() const
{
    const QJsonObject pool = poolStats();
    return pool.isEmpty() ? -1 : pool.value(QStringLiteral("server_ejects")).toInteger();
}

int Twemproxy::backendHolding(const QByteArray& key)
{
    for (int i = 0; i < backendCount(); ++i)
        if (backend(i).command({QByteArrayLiteral("EXISTS"), key}) == ":1\r\n")
            return i;
    return -1;
}

std::optional<QList<QByteArray>> Twemproxy::keysOn(int i, const QByteArray& pattern)
{
    QList<QByteArray> keys;
    QByteArray cursor = "0";
    do {
        const QByteArray reply =
            backend(i).command({QByteArrayLiteral("SCAN"), cursor, QByteArrayLiteral("MATCH"),
                                pattern, QByteArrayLiteral("COUNT"), QByteArrayLiteral("1000")});
        // *2 $n <cursor> *k, then $len <key> pairs (our keys hold no line breaks).
        const QList<QByteArray> lines = reply.split('\n');
        if (lines.size() < 4)
            return std::nullopt;
        cursor = lines.at(2).trimmed();
        for (qsizetype line = 5; line < lines.size(); line += 2)
            keys << lines.at(line).trimmed();
    } while (cursor != "0");
    return keys;
}

qint64 Twemproxy::keysWithoutTtl(const QByteArray& pattern)
{
    qint64 count = 0;
    for (int i = 0; i < backendCount(); ++i) {
        const auto keys = keysOn(i, pattern);
        if (!keys)
            return -1;
        for (const QByteArray& key : *keys)
            if (backend(i).command({QByteArrayLiteral("PTTL"), key}) == ":-1\r\n")
                ++count;
    }
    return count;
}

QByteArray Twemproxy::log() const
{
    if (!m_dir)
        return {};
    QFile file(m_dir->filePath(QStringLiteral("nutcracker.log")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool Twemproxy::fail(const QString& message)
{
    m_error = message;
    const QByteArray tail = log().right(2000);
    if (!tail.isEmpty())
        m_error += QStringLiteral("\n--- nutcracker log (tail) ---\n") + QString::fromUtf8(tail);
    return false;
}

} // namespace tollgate::test
