#include "service/demo/DemoEdge.h"

#include "service/grpc/RlsClient.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace tollgate::service {

namespace {

const char kConfig[] = R"(# The demo's edge: what Envoy would ask tollgated (envoyproxy/ratelimit's format).
domain: edge
descriptors:
  - key: remote_address
    rate_limit: {unit: minute, requests_per_unit: 120}
  - key: generic_key
    value: login
    descriptors:
      - key: user_id
        rate_limit: {unit: minute, requests_per_unit: 5}
        tollgate: {ban: 5m, message: "Too many login attempts"}
)";

constexpr int kOrdinaryClients = 60;
constexpr int kMaxInFlight = 100;

DecisionRequest request(QList<QPair<QByteArray, QByteArray>> entries)
{
    DecisionRequest plain;
    plain.domain = "edge";
    RequestDescriptor descriptor;
    for (const auto& [key, value] : entries)
        descriptor.entries.push_back({key, value});
    plain.descriptors.push_back(std::move(descriptor));
    return plain;
}

} // namespace

DemoEdge::DemoEdge(QObject* parent) : QObject(parent)
{
    m_timer.setInterval(200);
    connect(&m_timer, &QTimer::timeout, this, &DemoEdge::tick);
}

DemoEdge::~DemoEdge()
{
    m_timer.stop();
    m_process.disconnect(this); // its end is ours now, not a failure to report
    if (m_process.state() != QProcess::NotRunning) {
        m_process.terminate();
        if (!m_process.waitForFinished(3000))
            m_process.kill();
        m_process.waitForFinished(3000);
    }
}

QString DemoEdge::executable()
{
    const QString fromEnvironment = qEnvironmentVariable("TOLLGATED");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/tollgated");
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("tollgated"));
}

void DemoEdge::start(const QString& redisUrl, const QByteArray& prefix)
{
    const QString program = executable();
    if (program.isEmpty()) {
        Q_EMIT failed(QStringLiteral("tollgated not found (install the tollgated package, or "
                                     "set TOLLGATED)"));
        return;
    }
    const QString config = m_dir.filePath(QStringLiteral("edge.yaml"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly) || file.write(kConfig) < 0) {
        Q_EMIT failed(QStringLiteral("cannot write %1").arg(config));
        return;
    }
    file.close();
    connect(&m_process, &QProcess::readyReadStandardError, this, &DemoEdge::readLog);
    connect(&m_process, &QProcess::finished, this, [this] {
        m_timer.stop();
        Q_EMIT failed(QStringLiteral("tollgated ended: ") + QString::fromUtf8(m_log).trimmed());
    });
    m_process.start(program, {QStringLiteral("--config"), config, QStringLiteral("--url"), redisUrl,
                              QStringLiteral("--prefix"), QString::fromUtf8(prefix),
                              QStringLiteral("--grpc"), QStringLiteral("127.0.0.1:0"),
                              QStringLiteral("--http"), QStringLiteral("127.0.0.1:0"),
                              QStringLiteral("--actor"), QStringLiteral("demo")});
}

void DemoEdge::readLog()
{
    const QByteArray said = m_process.readAllStandardError();
    if (m_grpcPort != 0)
        return; // serving: its log is read and dropped, so a full pipe never stalls it
    m_log += said;
    static const QRegularExpression serving(QStringLiteral("serving: gRPC port (\\d+)"));
    const auto match = serving.match(QString::fromUtf8(m_log));
    if (!match.hasMatch())
        return;
    m_grpcPort = quint16(match.captured(1).toUInt());
    m_client = std::make_unique<RlsClient>(QStringLiteral("127.0.0.1:%1").arg(m_grpcPort));
    m_timer.start();
    Q_EMIT started();
}

void DemoEdge::tick()
{
    if (m_inFlight > kMaxInFlight)
        return; // the service or Redis lags: skip a beat rather than pile up
    std::vector<DecisionRequest> requests;
    std::uniform_int_distribution<int> client(1, kOrdinaryClients);
    for (int i = 0; i < 3; ++i)
        requests.push_back(request({{"remote_address", "203.0.113." + QByteArray::number(client(m_random))}}));
    for (const char* flooding : {"198.51.100.7", "198.51.100.23"}) // each ~5 a second, over 2 a second
        requests.push_back(request({{"remote_address", flooding}}));
    requests.push_back(request({{"generic_key", "login"}, {"user_id", "admin"}})); // stuffing
    if (m_random() % 4 == 0)
        requests.push_back(request({{"generic_key", "login"},
                                    {"user_id", "user" + QByteArray::number(client(m_random))}}));
    for (const DecisionRequest& each : requests) {
        ++m_inFlight;
        m_client->decide(each, this, [this](RlsClient::Answer answer) {
            --m_inFlight;
            ++m_answered;
            if (answer.ok && answer.code == Code::OverLimit)
                ++m_refused;
        });
    }
}

} // namespace tollgate::service
