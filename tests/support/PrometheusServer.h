#pragma once

#include <QJsonObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>

namespace tollgate::test {

// A private Prometheus (Debian's `prometheus` on PATH): temp dir for its config and TSDB,
// loopback, a free port, scraping `targets` every second. Killed when destroyed.
class PrometheusServer
{
public:
    PrometheusServer() = default;
    ~PrometheusServer();
    PrometheusServer(const PrometheusServer&) = delete;
    PrometheusServer& operator=(const PrometheusServer&) = delete;

    // Whether prometheus and promtool are on PATH (the suite needs them: scripts/setup.sh).
    static bool available();

    // Starts and waits (30 s) until /-/ready answers; `ruleFiles` are loaded as rule_files.
    bool start(const QStringList& targets, const QStringList& ruleFiles = {});
    QString errorString() const { return m_error; }
    quint16 port() const { return m_port; }

    // GET /api/v1/<endpoint>?<query> (blocking, 10 s): the decoded JSON answer, or an object
    // with "status":"error" and "error" when there was none.
    QJsonObject api(const QString& endpoint,
                    const QList<QPair<QString, QString>>& query = {}) const;
    // An instant query's result vector ("data"."result"); `error` set when the query failed.
    QJsonArray query(const QString& expr, QString* error = nullptr) const;
    // The value of a query that gives exactly one sample, NaN otherwise.
    double scalar(const QString& expr) const;

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
    QString m_error;
};

// Runs `program args` (60 s at most): exit code (-1 when it did not finish) and both outputs.
struct ToolRun
{
    int code = -1;
    QByteArray output; // stdout and stderr, merged
};
ToolRun runTool(const QString& program, const QStringList& args, const QByteArray& input = {});

} // namespace tollgate::test
