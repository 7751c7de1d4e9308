#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>

// The tollgated a benchmark measures: the built binary (next to the benchmarks:
// <build>/app/tollgated; TOLLGATED overrides), started on ports the kernel picks (read back
// from its "serving: gRPC port N, HTTP port M" line), stopped with SIGTERM when destroyed.
namespace tollgate::bench {

class TollgatedProcess
{
public:
    TollgatedProcess() = default;
    ~TollgatedProcess();
    TollgatedProcess(const TollgatedProcess&) = delete;
    TollgatedProcess& operator=(const TollgatedProcess&) = delete;

    static QString binaryPath();
    /// Another program in its place, started with the same arguments and read the same way
    /// (bench/service/GrpcFloor).
    void setProgram(QString program, QStringList leadingArgs)
    {
        m_program = std::move(program);
        m_leadingArgs = std::move(leadingArgs);
    }

    /// Starts it and waits (10 s at most) until it serves and has written the configuration's
    /// policies to Redis. False with errorString() when it did not.
    bool start(const QString& configPath, const QString& redisUrl,
               const QStringList& extraArgs = {});
    void stop();

    /// Empty while it runs; else how it ended ("killed by signal 11", "exit code 1").
    QString endText();

    quint16 grpcPort() const { return m_grpcPort; }
    quint16 httpPort() const { return m_httpPort; }
    qint64 pid() const;
    QString errorString() const { return m_error; }
    QByteArray log() const; // everything it wrote on stderr

    /// VmRSS from /proc/<pid>/status, in kB; -1 when unreadable.
    qint64 rssKb() const;
    /// User + system CPU seconds it has used so far (/proc/<pid>/stat).
    double cpuSeconds() const;

    /// GET /metrics (blocking); empty when it did not answer.
    QByteArray metrics() const;
    /// The sum of every sample of `name` in an exposition (all label sets), or -1 if none.
    static double sum(const QByteArray& exposition, const QByteArray& name);

private:
    QString m_program; // empty: binaryPath()
    QStringList m_leadingArgs;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_grpcPort = 0;
    quint16 m_httpPort = 0;
    QString m_error;
};

} // namespace tollgate::bench
