#include "tests/support/ExporterProcess.h"
#include "tests/support/ProcessLog.h"

#include "tests/support/CliRunner.h"

#include <QDeadlineTimer>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QThread>

namespace tollgate::test {

ExporterProcess::~ExporterProcess()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }
}

bool ExporterProcess::start(const QString& url, const QStringList& extraArgs)
{
    m_process = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), url);
    m_process->setProcessEnvironment(env);
    QStringList args{QStringLiteral("exporter"), QStringLiteral("--listen"),
                     QStringLiteral("127.0.0.1:0")};
    m_process->setReadChannel(QProcess::StandardError); // for waitForReadyRead
    m_process->start(tollgatectlPath(), args + extraArgs);
    static const QRegularExpression serving(QStringLiteral("serving http://[^:]+:(\\d+)/metrics"));
    const QRegularExpressionMatch match = waitForLogLine(*m_process, m_stderr, serving, 10000);
    if (match.hasMatch()) {
        m_port = static_cast<quint16>(match.captured(1).toUInt());
        return true;
    }
    m_error = QStringLiteral("exporter did not start: ") + QString::fromUtf8(m_stderr);
    return false;
}

bool ExporterProcess::stop()
{
    if (!m_process)
        return false;
    m_process->terminate();
    const bool exited = m_process->waitForFinished(10000);
    m_stderr += m_process->readAllStandardError();
    return exited && m_process->exitStatus() == QProcess::NormalExit && m_process->exitCode() == 0;
}

QString ExporterProcess::address() const
{
    return QStringLiteral("127.0.0.1:%1").arg(m_port);
}

QByteArray ExporterProcess::stderrText()
{
    if (m_process)
        m_stderr += m_process->readAllStandardError();
    return m_stderr;
}

ExporterProcess::Response ExporterProcess::get(const QByteArray& path,
                                               const QByteArray& accept) const
{
    // A plain socket: the answer is read as the exporter wrote it (Connection: close).
    Response response;
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), m_port);
    if (!socket.waitForConnected(10000))
        return response;
    QByteArray request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!accept.isEmpty())
        request += "Accept: " + accept + "\r\n";
    socket.write(request + "\r\n");
    QByteArray all;
    QDeadlineTimer deadline(10000);
    while (socket.state() == QAbstractSocket::ConnectedState && !deadline.hasExpired()) {
        socket.waitForReadyRead(100);
        all += socket.readAll();
    }
    all += socket.readAll();
    const qsizetype end = all.indexOf("\r\n\r\n");
    if (end < 0)
        return response;
    const QList<QByteArray> head = all.left(end).split('\n');
    response.status = head.value(0).split(' ').value(1).toInt();
    for (const QByteArray& line : head)
        if (line.toLower().startsWith("content-type:"))
            response.contentType = line.mid(13).trimmed();
    response.body = all.mid(end + 4);
    return response;
}

} // namespace tollgate::test
