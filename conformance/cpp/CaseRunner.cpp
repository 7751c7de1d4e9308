#include "conformance/cpp/CaseRunner.h"

#include "conformance/cpp/Expectations.h"
#include "conformance/cpp/LibraryClient.h"
#include "core/client/Scan.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"
#include "tollgate/Blocking.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QThread>

#include <future>

namespace tollgate::conformance {

namespace {

const QString kRunner = QStringLiteral("cpp");

bool isClientOp(const QString& op)
{
    static const QStringList ops = QString::fromLatin1("hit peek refund penalize ban unban reset override")
                                       .split(QLatin1Char(' '));
    return ops.contains(op);
}

} // namespace

CaseRunner::CaseRunner(Server server) : m_server(std::move(server)) {}

CaseRunner::~CaseRunner() = default;

bool CaseRunner::connect(QString* error)
{
    auto options = ConnectionOptions::fromUrl(m_server.url);
    if (!options) {
        *error = options.error().toString();
        return false;
    }
    options->clientName = QStringLiteral("tollgate-conformance-inspector");
    m_inspector = std::make_unique<Client>(*options);
    m_inspector->open();
    auto ping = m_inspector->executeSync({"PING"});
    if (!ping)
        *error = ping.error().toString();
    return bool(ping);
}

QString CaseRunner::run(const CaseFile& testCase)
{
    if (testCase.skip.contains(kRunner))
        return QStringLiteral("SKIP %1: %2").arg(testCase.file, testCase.skip.value(kRunner).toString());
    if (testCase.cluster != m_server.cluster)
        return QStringLiteral("SKIP %1: %2").arg(testCase.file, testCase.cluster
                                                                    ? QStringLiteral("needs a Redis Cluster")
                                                                    : QStringLiteral("runs on a single server"));
    auto flushed = std::make_shared<std::promise<void>>();
    m_inspector->executeOnEveryPrimary({"FLUSHALL"}, nullptr,
                                       [flushed](std::vector<Result<Reply>>) { flushed->set_value(); });
    flushed->get_future().wait();
    for (const auto& [action, fields] : testCase.policies)
        if (Status written = writePolicy(testCase.prefix, action, fields); !written)
            return QStringLiteral("FAIL %1: policy %2: %3")
                .arg(testCase.file, QString::fromUtf8(action), written.error().toString());
    LibraryClient client(m_server.url, KeySchema(testCase.prefix));
    QString line = QStringLiteral("PASS ") + testCase.file;
    for (qsizetype i = 0; i < testCase.steps.size(); ++i) {
        const QString mismatch = runStep(testCase.steps.at(i).toObject(), client, testCase);
        if (!mismatch.isEmpty()) {
            line = QStringLiteral("FAIL %1: step %2: %3").arg(testCase.file).arg(i + 1).arg(mismatch);
            break;
        }
    }
    if (m_server.freeze)
        m_server.freeze(false);
    return line;
}

QString CaseRunner::runStep(const QJsonObject& step, LibraryClient& client, const CaseFile& testCase)
{
    const QString op = step.value(QStringLiteral("op")).toString();
    const QJsonObject expect = step.value(QStringLiteral("expect")).toObject();
    const int repeat = step.value(QStringLiteral("repeat")).toInt(1);
    for (int n = 0; n < repeat; ++n) {
        if (isClientOp(op)) {
            QElapsedTimer clock;
            clock.start();
            StepOutcome outcome = client.run(step);
            outcome.fields.insert(QStringLiteral("elapsed_ms"), clock.elapsed());
            const QString wanted = expect.value(QStringLiteral("error")).toString();
            if (outcome.error != wanted)
                return QStringLiteral("error expected %1 got %2%3")
                    .arg(wanted.isEmpty() ? QStringLiteral("null") : wanted,
                         outcome.error.isEmpty() ? QStringLiteral("null") : outcome.error,
                         outcome.detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(outcome.detail));
            if (wanted.isEmpty())
                if (QString mismatch = compareExpectation(expect, outcome.fields); !mismatch.isEmpty())
                    return mismatch;
        } else if (op == QLatin1String("policy")) {
            const auto action = idBytes(step.value(QStringLiteral("action")));
            if (!action)
                return QStringLiteral("bad action");
            const Status done = step.value(QStringLiteral("delete")).toBool()
                                    ? deletePolicy(testCase.prefix, *action)
                                    : writePolicy(testCase.prefix, *action,
                                                  step.value(QStringLiteral("fields")).toObject());
            if (!done)
                return QStringLiteral("policy step: ") + done.error().toString();
            client.forgetPolicies();
        } else if (op == QLatin1String("sleep")) {
            QThread::msleep(step.value(QStringLiteral("ms")).toInt());
        } else if (op == QLatin1String("redis")) {
            Command command;
            for (const QJsonValue& word : step.value(QStringLiteral("command")).toArray())
                command << word.toString().toUtf8();
            (void)m_inspector->executeSync(command); // a command meant to fail is the case's business
            client.forgetPolicies();           // it may have edited a policy hash by hand
        } else if ((op == QLatin1String("freeze") || op == QLatin1String("thaw")) && m_server.freeze) {
            m_server.freeze(op == QLatin1String("freeze"));
        }
    }
    if (expect.contains(QStringLiteral("keys_without_ttl"))) {
        const qint64 want = qint64(expect.value(QStringLiteral("keys_without_ttl")).toDouble());
        const qint64 have = keysWithoutTtl(testCase.prefix);
        if (want != have)
            return QStringLiteral("keys_without_ttl expected %1 got %2").arg(want).arg(have);
    }
    return {};
}

Status CaseRunner::writePolicy(const QByteArray& prefix, const QByteArray& action,
                               const QJsonObject& fields)
{
    const KeyLayout layout(KeySchema(prefix), m_server.cluster);
    const QByteArray key = layout.policyKey(action);
    const auto revision = m_inspector->executeSync({"HGET", key, "revision"});
    if (!revision)
        return revision.error();
    Command args{revision->isNil() ? QByteArray("0") : revision->toBytes(), "conformance",
                 KeySchema(prefix).eventsChannel(), ""};
    for (auto it = fields.begin(); it != fields.end(); ++it)
        args << it.key().toUtf8() << it.value().toString().toUtf8();
    const Command keys{key, layout.policyAuditKey(), layout.policyIndexKey(), layout.policyHistoryKey(action)};
    auto written = waitFor<Reply>([&](Callback<Reply> done) {
        runScript(m_inspector.get(), QStringLiteral("policy_set"), keys, args, nullptr, done);
    });
    return written ? Status(Unit{}) : Status(written.error());
}

Status CaseRunner::deletePolicy(const QByteArray& prefix, const QByteArray& action)
{
    const KeyLayout layout(KeySchema(prefix), m_server.cluster);
    const QByteArray key = layout.policyKey(action);
    const auto revision = m_inspector->executeSync({"HGET", key, "revision"});
    if (!revision)
        return revision.error();
    const Command keys{key, layout.policyAuditKey(), layout.policyIndexKey(), layout.policyHistoryKey(action)};
    const Command args{revision->toBytes(), "conformance",
                       KeySchema(prefix).eventsChannel(), ""};
    auto deleted = waitFor<Reply>([&](Callback<Reply> done) {
        runScript(m_inspector.get(), QStringLiteral("policy_delete"), keys, args, nullptr, done);
    });
    return deleted ? Status(Unit{}) : Status(deleted.error());
}

qint64 CaseRunner::keysWithoutTtl(const QByteArray& prefix)
{
    ScanOptions options;
    options.pattern = prefix + ":*";
    auto keys = waitFor<QList<QByteArray>>(
        [&](Callback<QList<QByteArray>> done) { collectKeys(m_inspector.get(), options, nullptr, done); });
    if (!keys)
        return -1; // not a count: the comparison fails and names it
    qint64 count = 0;
    for (const QByteArray& key : *keys) {
        const auto ttl = m_inspector->executeSync({"PTTL", key});
        if (!ttl || ttl->toInteger() != -1)
            continue;
        const QList<QByteArray> parts = key.split(':');
        static const QByteArrayList stateCodes{"fw", "sl", "sw", "tb"};
        if (parts.size() >= 3 && stateCodes.contains(parts.at(parts.size() - 2))) {
            ++count; // a counter must always expire
        } else if (key.endsWith(":ban")) {
            const auto until = m_inspector->executeSync({"HGET", key, "until_ms"});
            count += until && !until->isNil() && until->toBytes() != "0"; // a timed ban
        } else if (key.endsWith("}:overrides") && !key.contains("{:}")) { // not a cluster's index
            const auto values = m_inspector->executeSync({"HVALS", key});
            bool permanent = false;
            for (const Reply& value : values ? values->elements : std::vector<Reply>())
                permanent = permanent || value.toBytes().split(' ').value(1) == "0";
            count += !permanent;
        }
    }
    return count;
}

} // namespace tollgate::conformance
