// `tollgatectl hit <action> <user> --headers`: the RateLimit fields of each result, in text
// and in --json, from allowed through the denial that bans to the ban itself.
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class HeadersCliTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void textAndJson();

private:
    CliRun hit(const QStringList& extra = {})
    {
        return runCli(tollgatectlPath(), m_core.server().url(),
                      QStringList{QStringLiteral("hit"), QStringLiteral("like"),
                                  QStringLiteral("42"), QStringLiteral("--headers")} +
                          extra);
    }
    CoreFixture m_core;
};

void HeadersCliTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    QVERIFY(m_core.flush());
    Policy like = makePolicy("like", 2, 60000);
    like.windows.push_back({100, 3'600'000});
    like.banMs = 600'000;
    QVERIFY(m_core.save(like).ok());
}

void HeadersCliTest::textAndJson()
{
    const QByteArray policyLine =
        "RateLimit-Policy: \"like-1m\";q=2;w=60, \"like-1h\";q=100;w=3600";
    CliRun first = hit();
    QCOMPARE(first.code, 0);
    QVERIFY2(first.out.contains(QByteArray(policyLine + '\n')), qPrintable(first.describe()));
    QVERIFY2(first.out.contains("RateLimit: \"like-1m\";r=1;t=60\n"), qPrintable(first.describe()));
    QVERIFY(!first.out.contains("Retry-After"));

    CliRun second = hit({QStringLiteral("--json")});
    QCOMPARE(second.code, 0);
    const QJsonObject headers = second.object().value(QStringLiteral("headers")).toObject();
    QCOMPARE(headers.value(QStringLiteral("RateLimit")).toString(),
             QStringLiteral("\"like-1m\";r=0;t=60"));
    QCOMPARE(headers.value(QStringLiteral("RateLimit-Policy")).toString().toLatin1(),
             policyLine.mid(18));

    // The denial that bans for 10 minutes: the quota is back when the ban ends.
    CliRun denied = hit();
    QCOMPARE(denied.code, 1);
    QVERIFY2(denied.out.contains("RateLimit: \"like-1m\";r=0;t=600\n"),
             qPrintable(denied.describe()));
    QVERIFY2(denied.out.contains("Retry-After: 600\n"), qPrintable(denied.describe()));
    CliRun banned = hit();
    QCOMPARE(banned.code, 1);
    // A moment into the ban: what is left of it, in whole seconds rounded up.
    QVERIFY2(banned.out.contains("Retry-After: 600\n") || banned.out.contains("Retry-After: 599\n"),
             qPrintable(banned.describe()));
    QVERIFY2(banned.out.contains("RateLimit: \"like-1m\";r=0;t=6"), qPrintable(banned.describe()));
}

QTEST_GUILESS_MAIN(HeadersCliTest)
#include "tst_HeadersCli.moc"
