#include "bench/service/TollgatedProcess.h"

#include "bench/service/HttpLoad.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QThread>
#include <unistd.h>

namespace tollgate::bench {

namespace {

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

TollgatedProcess::~TollgatedProcess()
{
    stop();
}

QString TollgatedProcess::binaryPath()
{
    return qEnvironmentVariable("TOLLGATED", QCoreApplication::applicationDirPath() +
                                                 QStringLiteral("/../app/tollgated"));
}

bool TollgatedProcess::start(const QString& configPath, const QString& redisUrl,
                             const QStringList& extraArgs)
{
    stop();
    m_dir = std::make_unique<QTemporaryDir>();
    m_process = std::make_unique<QProcess>();
    // Its log goes to a file: nothing has to drain a pipe while a load runs.
    m_process->setStandardErrorFile(m_dir->filePath(QStringLiteral("tollgated.log")));
    m_process->setStandardOutputFile(QProcess::nullDevice());
    const QString program = m_program.isEmpty() ? binaryPath() : m_program;
    m_process->start(program,
                     m_leadingArgs +
                     QStringList{QStringLiteral("--config"), configPath, QStringLiteral("--url"),
                                 redisUrl, QStringLiteral("--grpc"), QStringLiteral("127.0.0.1:0"),
                                 QStringLiteral("--http"), QStringLiteral("127.0.0.1:0")} +
                         extraArgs);
    if (!m_process->waitForStarted(10'000)) {
        m_error =
            QStringLiteral("%1 did not start: %2").arg(program, m_process->errorString());
        return false;
    }
    static const QRegularExpression serving(
        QStringLiteral("serving: gRPC port (\\d+), HTTP port (\\d+)"));
    QDeadlineTimer deadline(10'000);
    while (!deadline.hasExpired() && m_process->state() == QProcess::Running) {
        const QString text = QString::fromUtf8(log());
        const auto match = serving.match(text);
        // "policies:": Redis answered the listing, the plan is made and its writes are on their
        // way ("ready" is not written when a failure policy makes it ready from the start).
        if (match.hasMatch() && text.contains(QLatin1String("tollgated: policies:"))) {
            m_grpcPort = quint16(match.captured(1).toUInt());
            m_httpPort = quint16(match.captured(2).toUInt());
            QThread::msleep(500); // the writes and the re-read of the stored policies
            return true;
        }
        QThread::msleep(50);
    }
    m_error = QStringLiteral("tollgated did not get ready:\n") + QString::fromUtf8(log());
    return false;
}

void TollgatedProcess::stop()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    m_process->terminate();
    if (!m_process->waitForFinished(10'000)) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString TollgatedProcess::endText()
{
    if (!m_process || !m_process->waitForFinished(0))
        return {};
    return m_process->exitStatus() == QProcess::CrashExit
               ? QStringLiteral("it crashed (%1)").arg(m_process->errorString())
               : QStringLiteral("it exited with code %1").arg(m_process->exitCode());
}

qint64 TollgatedProcess::pid() const
{
    return m_process ? m_process->processId() : 0;
}

QByteArray TollgatedProcess::log() const
{
    return m_dir ? readFile(m_dir->filePath(QStringLiteral("tollgated.log"))) : QByteArray();
}

qint64 TollgatedProcess::rssKb() const
{
    const QByteArray status = readFile(QStringLiteral("/proc/%1/status").arg(pid()));
    for (const QByteArray& line : status.split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

double TollgatedProcess::cpuSeconds() const
{
    // "<pid> (<comm>) <state> ...": utime and stime are fields 14 and 15, counted from 1.
    const QByteArray stat = readFile(QStringLiteral("/proc/%1/stat").arg(pid()));
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return 0;
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    if (fields.size() < 13)
        return 0;
    return (fields[11].toDouble() + fields[12].toDouble()) / double(sysconf(_SC_CLK_TCK));
}

QByteArray TollgatedProcess::metrics() const
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), m_httpPort);
    if (!socket.waitForConnected(10'000))
        return {};
    socket.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    QByteArray answer;
    while (socket.waitForReadyRead(10'000)) {
        answer += socket.readAll();
        if (auto response = takeHttpResponse(answer))
            return response->status == 200 ? response->body : QByteArray();
    }
    return {};
}

double TollgatedProcess::sum(const QByteArray& exposition, const QByteArray& name)
{
    double total = -1;
    for (const QByteArray& line : exposition.split('\n')) {
        if (!line.startsWith(name) || line.size() <= name.size())
            continue;
        const char next = line.at(name.size());
        if (next != ' ' && next != '{')
            continue;
        total = std::max(total, 0.0) + line.mid(line.lastIndexOf(' ') + 1).toDouble();
    }
    return total;
}

} // namespace tollgate::bench
