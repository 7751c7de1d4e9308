#include "tests/support/PrometheusServer.h"

#include "tests/support/RedisServer.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>
#include <QUrlQuery>
#include <cmath>

namespace tollgate::test {

namespace {

// A blocking GET through Qt's HTTP client (Prometheus may answer chunked).
QPair<int, QByteArray> httpGet(const QUrl& url)
{
    QNetworkAccessManager manager;
    QNetworkRequest request(url);
    request.setTransferTimeout(10000);
    QNetworkReply* reply = manager.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    reply->deleteLater();
    return {status, body};
}

} // namespace

PrometheusServer::~PrometheusServer()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(10000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }
}

bool PrometheusServer::available()
{
    return !QStandardPaths::findExecutable(QStringLiteral("prometheus")).isEmpty() &&
           !QStandardPaths::findExecutable(QStringLiteral("promtool")).isEmpty();
}

bool PrometheusServer::start(const QStringList& targets, const QStringList& ruleFiles)
{
    m_dir = std::make_unique<QTemporaryDir>();
    QByteArray config = "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n";
    if (!ruleFiles.isEmpty()) {
        config += "rule_files:\n";
        for (const QString& file : ruleFiles)
            config += "  - '" + file.toUtf8() + "'\n";
    }
    config += "scrape_configs:\n  - job_name: tollgate\n    static_configs:\n      - targets: [";
    for (qsizetype i = 0; i < targets.size(); ++i)
        config += (i ? ", '" : "'") + targets[i].toUtf8() + "'";
    config += "]\n";
    QFile file(m_dir->filePath(QStringLiteral("prometheus.yml")));
    if (!file.open(QIODevice::WriteOnly) || file.write(config) != config.size()) {
        m_error = QStringLiteral("cannot write the config");
        return false;
    }
    file.close();
    // A free port may be taken by the time prometheus binds it: try a few.
    for (int attempt = 0; attempt < 3; ++attempt) {
        m_port = RedisServer::freePort();
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        m_process->start(
            QStringLiteral("prometheus"),
            {QStringLiteral("--config.file=") + file.fileName(),
             QStringLiteral("--storage.tsdb.path=") + m_dir->filePath(QStringLiteral("data")),
             QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port),
             QStringLiteral("--log.level=warn")});
        QDeadlineTimer deadline(30000);
        while (!deadline.hasExpired() && m_process->state() != QProcess::NotRunning) {
            const QUrl ready(QStringLiteral("http://127.0.0.1:%1/-/ready").arg(m_port));
            if (httpGet(ready).first == 200)
                return true;
            m_process->waitForFinished(200);
        }
        m_error = QStringLiteral("prometheus did not become ready: ") +
                  QString::fromUtf8(m_process->readAll());
        m_process->kill();
        m_process->waitForFinished(5000);
    }
    return false;
}

QJsonObject PrometheusServer::api(const QString& endpoint,
                                  const QList<QPair<QString, QString>>& query) const
{
    QUrl url(QStringLiteral("http://127.0.0.1:%1/api/v1/%2").arg(m_port).arg(endpoint));
    QUrlQuery items;
    items.setQueryItems(query);
    url.setQuery(items);
    const auto [status, body] = httpGet(url);
    const QJsonDocument document = QJsonDocument::fromJson(body);
    if (!document.isObject())
        return {{QStringLiteral("status"), QStringLiteral("error")},
                {QStringLiteral("error"),
                 QStringLiteral("HTTP %1: %2").arg(status).arg(QString::fromUtf8(body))}};
    return document.object();
}

QJsonArray PrometheusServer::query(const QString& expr, QString* error) const
{
    const QJsonObject answer = api(QStringLiteral("query"), {{QStringLiteral("query"), expr}});
    if (answer.value(QStringLiteral("status")).toString() != QLatin1String("success")) {
        if (error)
            *error = answer.value(QStringLiteral("error")).toString();
        return {};
    }
    return answer.value(QStringLiteral("data"))
        .toObject()
        .value(QStringLiteral("result"))
        .toArray();
}

double PrometheusServer::scalar(const QString& expr) const
{
    const QJsonArray result = query(expr);
    if (result.size() != 1)
        return std::nan("");
    const QJsonArray value = result[0].toObject().value(QStringLiteral("value")).toArray();
    return value.at(1).toString().toDouble();
}

ToolRun runTool(const QString& program, const QStringList& args, const QByteArray& input)
{
    ToolRun run;
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    if (!process.waitForStarted(10000)) {
        run.output = "cannot start " + program.toUtf8();
        return run;
    }
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished(5000);
        run.output = process.readAll();
        return run;
    }
    run.output = process.readAll();
    run.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return run;
}

} // namespace tollgate::test
