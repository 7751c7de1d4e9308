#include "tests/support/ServiceProcess.h"
#include "tests/support/ProcessLog.h"

#include "tests/support/TestEnv.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <csignal>

namespace tollgate::test {

QString tollgatedPath()
{
    // Tests build into <build>/tests, the executables into <build>/app.
    return qEnvironmentVariable("TOLLGATED", QCoreApplication::applicationDirPath() +
                                                 QStringLiteral("/../app/tollgated"));
}

ServiceProcess::~ServiceProcess()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

bool ServiceProcess::start(const QString& url, const QString& configPath,
                           const QStringList& extraArgs)
{
    m_process = std::make_unique<QProcess>();
    m_stderr.clear();
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    m_process->setReadChannel(QProcess::StandardError);
    m_process->start(tollgatedPath(),
                     QStringList{QStringLiteral("--config"), configPath, QStringLiteral("--url"), url,
                                 QStringLiteral("--grpc"), QStringLiteral("127.0.0.1:0"),
                                 QStringLiteral("--http"), QStringLiteral("127.0.0.1:0")} +
                         extraArgs);
    static const QRegularExpression serving(
        QStringLiteral("serving: gRPC (?:port (\\d+)|off), HTTP (?:port (\\d+)|off)"));
    const QRegularExpressionMatch match = waitForLogLine(*m_process, m_stderr, serving, 15000);
    if (match.hasMatch()) {
        m_grpcPort = quint16(match.captured(1).toUInt());
        m_httpPort = quint16(match.captured(2).toUInt());
        return true;
    }
    m_error = QStringLiteral("tollgated did not start: ") + QString::fromUtf8(m_stderr);
    return false;
}

bool ServiceProcess::stop()
{
    if (!m_process)
        return false;
    m_process->terminate();
    // Already gone counts as finished (waitForFinished is false then).
    const bool exited =
        m_process->state() == QProcess::NotRunning || m_process->waitForFinished(10000);
    m_stderr += m_process->readAllStandardError();
    const bool clean =
        exited && m_process->exitStatus() == QProcess::NormalExit && m_process->exitCode() == 0;
    if (!clean) // said in stderrText(), which a failing test prints
        m_stderr += !exited ? QByteArray("[still running 10 s after SIGTERM]\n")
                    : m_process->exitStatus() == QProcess::CrashExit
                        ? QByteArray("[crashed]\n")
                        : "[exit code " + QByteArray::number(m_process->exitCode()) + "]\n";
    return clean;
}

void ServiceProcess::hangUp()
{
    if (m_process)
        ::kill(pid_t(m_process->processId()), SIGHUP);
}

qint64 ServiceProcess::pid() const
{
    return m_process ? m_process->processId() : 0;
}

QString ServiceProcess::grpcTarget() const
{
    return QStringLiteral("127.0.0.1:%1").arg(m_grpcPort);
}

QByteArray ServiceProcess::stderrText()
{
    if (m_process)
        m_stderr += m_process->readAllStandardError();
    return m_stderr;
}

bool ServiceProcess::waitForLog(const QByteArray& text, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!stderrText().contains(text)) {
        if (deadline.hasExpired() || !m_process)
            return false;
        m_process->waitForReadyRead(50);
    }
    return true;
}

ServiceProcess::Http ServiceProcess::curl(const QByteArray& method, const QByteArray& path,
                                          const QByteArray& body) const
{
    QProcess curl;
    QStringList args{QStringLiteral("-s"), QStringLiteral("-i"), QStringLiteral("-X"),
                     QString::fromLatin1(method),
                     QStringLiteral("http://127.0.0.1:%1%2").arg(m_httpPort).arg(QString::fromLatin1(path))};
    if (!body.isNull())
        args << QStringLiteral("-H") << QStringLiteral("Content-Type: application/json")
             << QStringLiteral("--data-binary") << QStringLiteral("@-");
    curl.start(QStringLiteral("curl"), args);
    curl.write(body);
    curl.closeWriteChannel();
    Http http;
    if (!curl.waitForFinished(15000))
        return http;
    const QByteArray out = curl.readAllStandardOutput();
    const qsizetype split = out.indexOf("\r\n\r\n");
    http.headers = out.left(split);
    http.body = split < 0 ? QByteArray() : out.mid(split + 4);
    static const QRegularExpression status(QStringLiteral("^HTTP/1\\.[01] (\\d+)"));
    const auto match = status.match(QString::fromLatin1(http.headers));
    http.status = match.hasMatch() ? match.captured(1).toInt() : 0;
    return http;
}

namespace {
QTemporaryDir& stubs()
{
    static QTemporaryDir dir;
    return dir;
}
} // namespace

QString rlsStubDir()
{
    return stubs().path();
}

PythonRun runRlsClient(const QStringList& args, const QByteArray& input, int timeoutMs)
{
    return runWithStubs(sourcePath(QStringLiteral("tests/python/rls_client.py")), args, input,
                        timeoutMs);
}

PythonRun runWithStubs(const QString& script, const QStringList& args, const QByteArray& input,
                       int timeoutMs)
{
    // Debian's grpcio and protobuf live in the system interpreter, not in a virtualenv's.
    QTemporaryDir& stubs = test::stubs();
    static bool generated = false;
    PythonRun run;
    if (!generated) {
        QStringList protos;
        const QDir root(sourcePath(QStringLiteral("proto")));
        for (const char* file : {"envoy/type/v3/ratelimit_unit.proto", "envoy/config/core/v3/base.proto",
                                 "health/v1/health.proto", "reflection/v1alpha/reflection.proto",
                                 "envoy/extensions/common/ratelimit/v3/ratelimit.proto",
                                 "envoy/service/ratelimit/v3/rls.proto"})
            protos << QString::fromLatin1(file);
        QProcess protoc;
        protoc.setWorkingDirectory(root.path());
        protoc.start(QStringLiteral("protoc"),
                     QStringList{QStringLiteral("--python_out=") + stubs.path(),
                                 QStringLiteral("--grpc_python_out=") + stubs.path(),
                                 QStringLiteral("--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin")} +
                         protos);
        protoc.waitForFinished(60000);
        if (protoc.exitCode() != 0) {
            run.err = "protoc: " + protoc.readAllStandardError();
            return run;
        }
        generated = true;
    }
    QProcess python;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), stubs.path());
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    python.setProcessEnvironment(env);
    python.start(QStringLiteral("/usr/bin/python3"),
                 QStringList{script} + args);
    python.write(input);
    python.closeWriteChannel();
    if (!python.waitForFinished(timeoutMs)) {
        python.kill();
        python.waitForFinished();
        run.err = "timed out: " + python.readAllStandardError();
        return run;
    }
    run.exitCode = python.exitCode();
    run.err = python.readAllStandardError();
    for (const QByteArray& line : python.readAllStandardOutput().split('\n'))
        if (!line.trimmed().isEmpty())
            run.lines << line;
    return run;
}

} // namespace tollgate::test
