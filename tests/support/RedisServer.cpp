#include "tests/support/RedisServer.h"

#include "app/demo/DemoServer.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpSocket>

#ifdef Q_OS_LINUX
#include <csignal>
#include <sys/prctl.h>
#endif

namespace tollgate::test {

namespace {

const int kReadyTimeoutMs = 10000;
const int kStopTimeoutMs = 5000;
const int kPortAttempts = 20;
const qsizetype kLogTailBytes = 3000;

QString logFileName(const QTemporaryDir& dir)
{
    return dir.filePath(QStringLiteral("redis-server.log"));
}

qsizetype parseLength(const QByteArray& data, qsizetype from, qsizetype to, bool* ok)
{
    return data.mid(from, to - from).toLongLong(ok);
}

} // namespace

RedisServer::RedisServer() = default;

RedisServer::~RedisServer()
{
    stop();
}

QString RedisServer::redisServerPath()
{
    QString found = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (!found.isEmpty())
        return found;
    for (const QString& candidate :
         {QStringLiteral("/usr/bin/redis-server"), QStringLiteral("/usr/sbin/redis-server")}) {
        if (QFileInfo(candidate).isExecutable())
            return candidate;
    }
    return {};
}

bool RedisServer::start(const QStringList& extraArgs)
{
    return startWithArguments(extraArgs, false);
}

bool RedisServer::startTls(const TlsFiles& files, const QStringList& extraArgs)
{
    m_tlsFiles = files;
    return startWithArguments(extraArgs, true);
}

bool RedisServer::startSentinel(const QByteArray& config, const TlsFiles* tls)
{
    m_sentinelConfig = config;
    if (tls)
        m_tlsFiles = *tls;
    return startWithArguments({}, tls != nullptr);
}

bool RedisServer::startWithArguments(const QStringList& extraArgs, bool tls)
{
    m_error.clear();
    if (isRunning()) {
        fail(QStringLiteral("redis-server is already running on port ") + QString::number(m_port));
        return false;
    }
    m_serverPath = redisServerPath();
    if (m_serverPath.isEmpty()) {
        fail(QStringLiteral("redis-server not found: run scripts/setup.sh"));
        return false;
    }
    m_dir = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                            QStringLiteral("/tollgate-redis-XXXXXX"));
    if (!m_dir->isValid()) {
        fail(QStringLiteral("cannot create a temporary directory: ") + m_dir->errorString());
        return false;
    }
    m_extraArgs = extraArgs;
    m_tls = tls;

    // The free port can be taken by someone else between our probe and redis' bind: retry then.
    for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
        m_port = freePort();
        if (m_port == 0)
            continue;
        if (launch() && waitUntilReady())
            return true;
        const bool portTaken = log().contains("Address already in use");
        stop();
        if (!portTaken)
            return false;
    }
    if (m_error.isEmpty())
        fail(QStringLiteral("no free loopback port found"));
    return false;
}

bool RedisServer::restart()
{
    m_error.clear();
    if (!m_dir || m_port == 0) {
        fail(QStringLiteral("restart() before a successful start()"));
        return false;
    }
    stop();
    if (launch() && waitUntilReady())
        return true;
    stop();
    return false;
}

void RedisServer::stop()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(kStopTimeoutMs)) {
            m_process->kill();
            m_process->waitForFinished(kStopTimeoutMs);
        }
    }
    m_process.reset();
}

void RedisServer::kill()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(kStopTimeoutMs);
    }
    m_process.reset();
}

qint64 RedisServer::processId() const
{
    return isRunning() ? m_process->processId() : 0;
}

bool RedisServer::isRunning() const
{
    if (!m_process)
        return false;
    // Without an event loop QProcess learns about the child's exit only inside a wait call.
    m_process->waitForFinished(0);
    return m_process->state() == QProcess::Running;
}

QString RedisServer::url() const
{
    return (m_tls ? QStringLiteral("rediss://") : QStringLiteral("redis://")) + host() +
           QLatin1Char(':') + QString::number(m_port);
}

QString RedisServer::dir() const
{
    return m_dir ? m_dir->path() : QString();
}

QByteArray RedisServer::log() const
{
    if (!m_dir)
        return {};
    QFile file(logFileName(*m_dir));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

void RedisServer::setAuth(const QByteArray& password, const QByteArray& user)
{
    m_authPassword = password;
    m_authUser = user;
}

QStringList RedisServer::arguments() const
{
    QStringList args;
    if (!m_sentinelConfig.isEmpty()) {
        // The configuration file must come first; the sentinel rewrites it as it learns.
        const QString path = m_dir->filePath(QStringLiteral("sentinel.conf"));
        QFile file(path);
        if (!file.exists() && file.open(QIODevice::WriteOnly))
            file.write(m_sentinelConfig);
        args << path << QStringLiteral("--sentinel");
        // Dialling the servers makes it a TLS client: the client certificate (the server's
        // says serverAuth only).
        if (m_tls)
            args << QStringLiteral("--tls-replication") << QStringLiteral("yes")
                 << QStringLiteral("--tls-client-cert-file") << m_tlsFiles.clientCert
                 << QStringLiteral("--tls-client-key-file") << m_tlsFiles.clientKey;
    }
    if (m_tls) {
        args << QStringLiteral("--port") << QStringLiteral("0") << QStringLiteral("--tls-port")
             << QString::number(m_port) << QStringLiteral("--tls-cert-file")
             << m_tlsFiles.serverCert << QStringLiteral("--tls-key-file") << m_tlsFiles.serverKey
             << QStringLiteral("--tls-ca-cert-file") << m_tlsFiles.caCert
             << QStringLiteral("--tls-auth-clients") << QStringLiteral("optional");
    } else {
        args << QStringLiteral("--port") << QString::number(m_port);
    }
    args << QStringLiteral("--bind") << host() << QStringLiteral("--dir") << m_dir->path()
         << QStringLiteral("--daemonize") << QStringLiteral("no");
    if (m_sentinelConfig.isEmpty())
        args << QStringLiteral("--save") << QString() << QStringLiteral("--appendonly")
             << QStringLiteral("no");
    return args + m_extraArgs;
}

bool RedisServer::launch()
{
    m_process = std::make_unique<QProcess>();
    m_process->setProgram(m_serverPath);
    m_process->setArguments(arguments());
    m_process->setWorkingDirectory(m_dir->path());
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    // A file, not a pipe: nobody drains a pipe in a test without an event loop.
    m_process->setStandardOutputFile(logFileName(*m_dir), QIODevice::Append);
#ifdef Q_OS_LINUX
    // If the test crashes, the kernel kills the server instead of leaking it.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
#endif
    m_process->start();
    if (!m_process->waitForStarted(kStopTimeoutMs)) {
        fail(QStringLiteral("cannot start ") + m_serverPath + QStringLiteral(": ") +
             m_process->errorString());
        return false;
    }
    return true;
}

bool RedisServer::waitUntilReady()
{
    const QDeadlineTimer deadline(kReadyTimeoutMs);
    while (!deadline.hasExpired()) {
        // waitForFinished doubles as the pause between attempts and notices an early exit.
        if (m_process->waitForFinished(50) || m_process->state() == QProcess::NotRunning) {
            fail(QStringLiteral("redis-server exited during start-up (exit code ") +
                 QString::number(m_process->exitCode()) + QLatin1Char(')'));
            return false;
        }
        // Any complete reply means the server is serving (-NOAUTH too), except -LOADING.
        const QByteArray reply = command({QByteArrayLiteral("PING")}, 500);
        if (!reply.isEmpty() && !reply.startsWith("-LOADING")) {
            m_error.clear();
            return true;
        }
    }
    fail(QStringLiteral("redis-server did not answer PING within ") +
         QString::number(kReadyTimeoutMs / 1000) + QStringLiteral(" s on port ") +
         QString::number(m_port));
    return false;
}

quint16 RedisServer::freePort()
{
    return DemoServer::freePort(); // its cluster bus port is free too
}

QString RedisServer::fail(const QString& message)
{
    QByteArray tail = log();
    if (tail.size() > kLogTailBytes)
        tail = tail.right(kLogTailBytes);
    m_error = message;
    if (!tail.isEmpty())
        m_error += QStringLiteral("\n--- redis-server log (tail) ---\n") + QString::fromUtf8(tail);
    return m_error;
}

QByteArray RedisServer::encodeCommand(const QList<QByteArray>& args)
{
    QByteArray out = '*' + QByteArray::number(args.size()) + "\r\n";
    for (const QByteArray& arg : args)
        out += '$' + QByteArray::number(arg.size()) + "\r\n" + arg + "\r\n";
    return out;
}

qsizetype RedisServer::replyLength(const QByteArray& data, qsizetype offset)
{
    if (offset >= data.size())
        return 0;
    const qsizetype eol = data.indexOf("\r\n", offset);
    if (eol < 0)
        return 0;
    const qsizetype lineLength = eol + 2 - offset;
    bool ok = false;
    switch (data.at(offset)) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
        return lineLength;
    case '$':
    case '!':
    case '=': { // bulk string, bulk error, verbatim string
        const qsizetype length = parseLength(data, offset + 1, eol, &ok);
        if (!ok)
            return -1;
        if (length < 0)
            return lineLength; // $-1: null bulk string
        const qsizetype end = eol + 2 + length + 2;
        return data.size() < end ? 0 : end - offset;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': { // array, set, push, map, attribute
        qsizetype count = parseLength(data, offset + 1, eol, &ok);
        if (!ok)
            return -1;
        if (count < 0)
            return lineLength; // *-1: null array
        if (data.at(offset) == '%' || data.at(offset) == '|')
            count *= 2;
        qsizetype position = eol + 2;
        for (qsizetype i = 0; i < count; ++i) {
            const qsizetype element = replyLength(data, position);
            if (element <= 0)
                return element;
            position += element;
        }
        return position - offset;
    }
    default:
        return -1;
    }
}

QByteArray RedisServer::command(const QList<QByteArray>& args, int timeoutMs)
{
    return pipeline({args}, timeoutMs).value(0);
}

QList<QByteArray> RedisServer::pipeline(const QList<QList<QByteArray>>& commands, int timeoutMs)
{
    if (m_port == 0 || commands.isEmpty())
        return {};
    const QDeadlineTimer deadline(timeoutMs);

    QByteArray request;
    qsizetype skip = 0; // replies to our own AUTH, not returned
    if (!m_authPassword.isEmpty()) {
        QList<QByteArray> auth{QByteArrayLiteral("AUTH")};
        if (!m_authUser.isEmpty())
            auth << m_authUser;
        auth << m_authPassword;
        request += encodeCommand(auth);
        skip = 1;
    }
    for (const QList<QByteArray>& args : commands)
        request += encodeCommand(args);

    std::unique_ptr<QTcpSocket> socket;
    if (m_tls) {
        auto ssl = std::make_unique<QSslSocket>();
        QSslConfiguration config = ssl->sslConfiguration();
        config.setCaCertificates(QSslCertificate::fromPath(m_tlsFiles.caCert));
        const QList<QSslCertificate> client = QSslCertificate::fromPath(m_tlsFiles.clientCert);
        QFile keyFile(m_tlsFiles.clientKey);
        if (!client.isEmpty() && keyFile.open(QIODevice::ReadOnly)) {
            config.setLocalCertificate(client.first());
            config.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Ec));
        }
        config.setPeerVerifyMode(QSslSocket::VerifyPeer);
        ssl->setSslConfiguration(config);
        ssl->connectToHostEncrypted(host(), m_port);
        if (!ssl->waitForEncrypted(int(deadline.remainingTime())))
            return {};
        socket = std::move(ssl);
    } else {
        socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(QHostAddress(host()), m_port);
        if (!socket->waitForConnected(int(deadline.remainingTime())))
            return {};
    }

    socket->write(request);
    const QList<QByteArray> replies = readReplies(*socket, commands.size() + skip, deadline);
    socket->disconnectFromHost();
    return replies.mid(skip);
}

QList<QByteArray> RedisServer::readReplies(QTcpSocket& socket, qsizetype count,
                                           const QDeadlineTimer& deadline)
{
    QByteArray buffer;
    QList<QByteArray> replies;
    qsizetype position = 0;
    while (replies.size() < count) {
        const qsizetype length = replyLength(buffer, position);
        if (length < 0)
            return {};
        if (length > 0) {
            replies << buffer.mid(position, length);
            position += length;
            continue;
        }
        if (deadline.hasExpired() || !socket.waitForReadyRead(int(deadline.remainingTime())))
            return {};
        buffer += socket.readAll();
    }
    return replies;
}

} // namespace tollgate::test
