#pragma once

#include <QProcess>
#include <QStringList>
#include <memory>

namespace tollgate::test {

// `tollgatectl exporter --listen 127.0.0.1:0` against `url`, on a port the kernel picks (read
// back from its "serving http://..." line): no free-port race. Killed (SIGTERM, then SIGKILL)
// when destroyed.
class ExporterProcess
{
public:
    ExporterProcess() = default;
    ~ExporterProcess();
    ExporterProcess(const ExporterProcess&) = delete;
    ExporterProcess& operator=(const ExporterProcess&) = delete;

    // False (see errorString) when it did not say it serves within 10 s.
    bool start(const QString& url, const QStringList& extraArgs = {});
    // SIGTERM and wait: true when it exited by itself with code 0 within 10 s.
    bool stop();
    quint16 port() const { return m_port; }
    QString address() const; // "127.0.0.1:<port>"
    QByteArray stderrText(); // everything it wrote on stderr so far
    QString errorString() const { return m_error; }

    // GET http://127.0.0.1:<port><path> (blocking, 10 s): status (0 = no answer) and body.
    struct Response
    {
        int status = 0;
        QByteArray contentType;
        QByteArray body;
    };
    Response get(const QByteArray& path, const QByteArray& accept = {}) const;

private:
    std::unique_ptr<QProcess> m_process;
    QByteArray m_stderr;
    quint16 m_port = 0;
    QString m_error;
};

} // namespace tollgate::test
