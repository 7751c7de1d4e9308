// `tollgatectl services` against a real server: one line per registered tollgated with its
// health (ready, not ready, stale), the documented JSON document, an unreadable entry named on
// stderr without failing, and the empty registry saying how to start an instance.

#include "core/registry/ServiceRegistry.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;

class ServicesCliTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { TOLLGATE_REQUIRE(m_core, flush()); }
    void textLinePerInstance();
    void jsonDocument();
    void emptyRegistrySaysHowToStartOne();

private:
    // Announces three instances: web-1 ready, web-2 not ready, web-3 silent for 40 s.
    void announceThree();
    test::CliRun ctl(const QStringList& args)
    {
        return test::runCli(test::tollgatectlPath(), m_core.server().url(), args);
    }

    CoreFixture m_core;
};

void ServicesCliTest::announceThree()
{
    for (int i = 1; i <= 3; ++i) {
        ServiceInstance s;
        s.host = QStringLiteral("web-%1").arg(i);
        s.id =
            s.host.toUtf8() + ":100" + QByteArray::number(i) + ":0000000" + QByteArray::number(i);
        s.pid = 1000 + i;
        s.ready = i != 2;
        s.decisionsPerSecond = 100.0 * i + 0.31;
        s.cachedRefusals = 10 * i;
        s.configDigest = QStringLiteral("digest%1abcde").arg(i);
        s.lastError = i == 2 ? QStringLiteral("redis: timeout\nretrying") : QString();
        const auto announced = await<qint64>([&](QObject* context, Callback<qint64> done) {
            ServiceRegistry(m_core.client(), m_core.schema()).announce(s, context, done);
        });
        QVERIFY2(announced, qPrintable(announced ? QString() : announced.error().toString()));
    }
    QVERIFY(
        m_core.inspect({"ZADD", m_core.schema().servicesSeenKey(),
                        QByteArray::number(m_core.serverNowMs() - 40'500), "web-3:1003:00000003"}));
}

void ServicesCliTest::textLinePerInstance()
{
    announceThree();
    QVERIFY(m_core.inspect({"HSET", m_core.schema().servicesKey(), "broken:1:1", "{"}));
    const test::CliRun run = ctl({QStringLiteral("services")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QStringList lines =
        QString::fromUtf8(run.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);
    QVERIFY2(lines[0].startsWith(QStringLiteral("ID")) &&
                 lines[0].contains(QStringLiteral("HEALTH")) &&
                 lines[0].contains(QStringLiteral("LAST ERROR")),
             qPrintable(lines[0]));
    const auto columns = [](const QString& line) {
        static const QRegularExpression gap(QStringLiteral("\\s{2,}"));
        return line.split(gap, Qt::SkipEmptyParts);
    };
    QCOMPARE(columns(lines[1]),
             (QStringList{QStringLiteral("web-1:1001:00000001"), QStringLiteral("web-1"),
                          QStringLiteral("ready"), QStringLiteral("100.3"), QStringLiteral("10"),
                          QStringLiteral("digest1abcde")}));
    QCOMPARE(
        columns(lines[2]),
        (QStringList{QStringLiteral("web-2:1002:00000002"), QStringLiteral("web-2"),
                     QStringLiteral("not ready"), QStringLiteral("200.3"), QStringLiteral("20"),
                     QStringLiteral("digest2abcde"), QStringLiteral("redis: timeout retrying")}));
    QVERIFY2(columns(lines[3]).value(2) == QStringLiteral("stale: seen 40s ago") ||
                 columns(lines[3]).value(2) == QStringLiteral("stale: seen 41s ago"),
             qPrintable(lines[3]));
    QVERIFY2(run.err.contains("warning: service broken:1:1: no last-seen time"),
             qPrintable(run.describe()));
}

void ServicesCliTest::jsonDocument()
{
    announceThree();
    const test::CliRun run = ctl({QStringLiteral("services"), QStringLiteral("--json")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QVERIFY(run.err.isEmpty());
    const QJsonObject doc = run.object();
    const qint64 now = doc[QStringLiteral("server_now_ms")].toInteger();
    QVERIFY(now > 0);
    QVERIFY(doc[QStringLiteral("unreadable")].toArray().isEmpty());
    const QJsonArray instances = doc[QStringLiteral("instances")].toArray();
    QCOMPARE(instances.size(), 3);
    QStringList health;
    for (const QJsonValue& value : instances)
        health << value[QStringLiteral("health")].toString();
    QCOMPARE(health, (QStringList{QStringLiteral("ready"), QStringLiteral("not_ready"),
                                  QStringLiteral("stale")}));
    const QJsonObject second = instances[1].toObject();
    QCOMPARE(second[QStringLiteral("id")].toString(), QStringLiteral("web-2:1002:00000002"));
    QCOMPARE(second[QStringLiteral("host")].toString(), QStringLiteral("web-2"));
    QCOMPARE(second[QStringLiteral("pid")].toInteger(), 1002);
    QCOMPARE(second[QStringLiteral("ready")].toBool(true), false);
    QCOMPARE(second[QStringLiteral("decisions_per_second")].toDouble(), 200.31);
    QCOMPARE(second[QStringLiteral("cached_refusals")].toInteger(), 20);
    QCOMPARE(second[QStringLiteral("last_error")].toString(),
             QStringLiteral("redis: timeout\nretrying"));
    QVERIFY(second[QStringLiteral("last_seen_ms")].toInteger() <= now);
    for (const char* field :
         {"version", "config_file", "config_digest", "grpc_address", "http_address", "started_ms",
          "decisions_total", "cache_bytes", "cache_hits_total"})
        QVERIFY2(second.contains(QLatin1String(field)), field);
    QVERIFY(now - instances[2][QStringLiteral("last_seen_ms")].toInteger() >= 40'000);
}

void ServicesCliTest::emptyRegistrySaysHowToStartOne()
{
    const test::CliRun text = ctl({QStringLiteral("services")});
    QVERIFY2(text.code == 0, qPrintable(text.describe()));
    QVERIFY2(text.out.contains("tollgated --config FILE --url URL"), qPrintable(text.describe()));
    const test::CliRun json = ctl({QStringLiteral("services"), QStringLiteral("--json")});
    QVERIFY2(json.code == 0, qPrintable(json.describe()));
    QVERIFY(json.object()[QStringLiteral("instances")].toArray().isEmpty());
    QCOMPARE(m_core.dbsize(), qint64(0)); // reading wrote nothing
    const test::CliRun extra = ctl({QStringLiteral("services"), QStringLiteral("extra")});
    QCOMPARE(extra.code, 2);
}

QTEST_GUILESS_MAIN(ServicesCliTest)
#include "tst_ServicesCli.moc"
