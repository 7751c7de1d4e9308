#pragma once

#include <QByteArray>
#include <QProcess>
#include <QStringList>
#include <memory>

namespace tollgate::test {

// A real tollgated (<build>/app/tollgated) against `url`, gRPC and HTTP on ports the kernel picks
// (read back from its "serving: gRPC port N, HTTP port M" line). Killed when destroyed.
class ServiceProcess
{
public:
    ServiceProcess() = default;
    ~ServiceProcess();
    ServiceProcess(const ServiceProcess&) = delete;
    ServiceProcess& operator=(const ServiceProcess&) = delete;

    // False (see errorString) when it did not say it serves within 15 s.
    bool start(const QString& url, const QString& configPath, const QStringList& extraArgs = {});
    // SIGTERM and wait: true when it exited by itself with code 0 within 10 s.
    bool stop();
    void hangUp(); // SIGHUP: reload the configuration
    qint64 pid() const;
    quint16 grpcPort() const { return m_grpcPort; }
    quint16 httpPort() const { return m_httpPort; }
    QString grpcTarget() const; // "127.0.0.1:<port>"
    QByteArray stderrText();    // everything it wrote so far
    // Waits until its stderr holds `text` (10 s at most).
    bool waitForLog(const QByteArray& text, int timeoutMs = 10000);
    QString errorString() const { return m_error; }

    struct Http
    {
        int status = 0; // 0: no answer
        QByteArray headers;
        QByteArray body;
    };
    // curl (a client that is not ours) against the HTTP endpoint.
    Http curl(const QByteArray& method, const QByteArray& path, const QByteArray& body = {}) const;

private:
    std::unique_ptr<QProcess> m_process;
    QByteArray m_stderr;
    quint16 m_grpcPort = 0;
    quint16 m_httpPort = 0;
    QString m_error;
};

QString tollgatedPath();

// tests/python/rls_client.py with Debian's python3-grpcio, stubs generated from proto/ once per
// process: `requests` are JSON lines (rls_client.py documents them); one JSON line per answer.
struct PythonRun
{
    int exitCode = -1;
    QList<QByteArray> lines; // stdout, one JSON value each
    QByteArray err;
};
PythonRun runRlsClient(const QStringList& args, const QByteArray& input = {}, int timeoutMs = 60000);

} // namespace tollgate::test
