// The Sentinel URL forms (core/sentinel/SentinelUrl through ConnectionOptions::fromUrl): every
// part read, bad input refused with a message naming the problem and never a password, and
// the URL written back without passwords unless asked for.

#include "tollgate/ConnectionOptions.h"

#include <QtTest>

using namespace tollgate;

class SentinelUrlTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsEveryPart();
    void defaultsAndSharedOptions();
    void refusesBadInput_data();
    void refusesBadInput();
    void writesBackWithoutPasswords();
    void redactsBothPasswords();
};

void SentinelUrlTest::readsEveryPart()
{
    const auto options = ConnectionOptions::fromUrl(QStringLiteral(
        "redis+sentinel://app:s%40cret@10.0.0.1:26380,sentinel-b,[::1]:26381/my%20master/3"
        "?sentinel_user=watcher&sentinel_password=pw2&timeout=1500&replica=1"));
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    QVERIFY(options->sentinel.enabled());
    QCOMPARE(options->sentinel.masterName, QStringLiteral("my master"));
    QCOMPARE(options->sentinel.sentinels.size(), size_t(3));
    QCOMPARE(options->sentinel.sentinels[0].text(), QStringLiteral("10.0.0.1:26380"));
    QCOMPARE(options->sentinel.sentinels[1].text(), QStringLiteral("sentinel-b:26379"));
    QCOMPARE(options->sentinel.sentinels[2].host, QStringLiteral("::1"));
    QCOMPARE(options->sentinel.sentinels[2].port, quint16(26381));
    QCOMPARE(options->user, QStringLiteral("app"));
    QCOMPARE(options->password, QStringLiteral("s@cret"));
    QCOMPARE(options->sentinel.user, QStringLiteral("watcher"));
    QCOMPARE(options->sentinel.password, QStringLiteral("pw2"));
    QVERIFY(options->sentinel.replica);
    QCOMPARE(options->database, 3);
    QCOMPARE(options->commandTimeout, std::chrono::milliseconds(1500));
    QVERIFY(!options->tls.enabled);
    // No server is known before the sentinels name one.
    QCOMPARE(options->endpoint(),
             QStringLiteral("my master via sentinels 10.0.0.1:26380, sentinel-b:26379, ::1:26381"));
}

void SentinelUrlTest::defaultsAndSharedOptions()
{
    const auto options = ConnectionOptions::fromUrl(
        QStringLiteral("REDISS+SENTINEL://h1/main?ca=/tmp/ca.pem&heartbeat=500"));
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    QVERIFY(options->tls.enabled);
    QCOMPARE(options->tls.caFile, QStringLiteral("/tmp/ca.pem"));
    QCOMPARE(options->heartbeatInterval, std::chrono::milliseconds(500));
    QCOMPARE(options->sentinel.sentinels.front().port, quint16(26379));
    QCOMPARE(options->database, 0);
    QVERIFY(options->sentinel.user.isEmpty());
    QVERIFY(!options->sentinel.replica);
}

void SentinelUrlTest::refusesBadInput_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message");
    QTest::newRow("no master") << "redis+sentinel://u:hunter2@h1:26379"
                               << "without a master name";
    QTest::newRow("empty master") << "redis+sentinel://h1:26379/"
                                  << "without a master name";
    QTest::newRow("bad port") << "redis+sentinel://h1:99999/m"
                              << "port out of range";
    QTest::newRow("empty port") << "redis+sentinel://h1:/m"
                                << "port out of range";
    QTest::newRow("no sentinel") << "redis+sentinel:///m"
                                 << "not a sentinel address";
    QTest::newRow("empty entry") << "redis+sentinel://h1,,h2/m"
                                 << "not a sentinel address";
    QTest::newRow("bad v6") << "redis+sentinel://[::1/m"
                            << "without ']'";
    QTest::newRow("deep path") << "redis+sentinel://h1/m/0/x"
                               << "/<master-name>[/db]";
    QTest::newRow("bad db") << "redis+sentinel://h1/m/x"
                            << "database must be a number";
    QTest::newRow("unknown option") << "redis+sentinel://h1/m?sentinel_password=hunter2&colour=red"
                                    << "unknown URL option";
    QTest::newRow("bad timeout") << "redis+sentinel://h1/m?timeout=0"
                                 << "timeout must be";
}

void SentinelUrlTest::refusesBadInput()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    const auto options = ConnectionOptions::fromUrl(url);
    QVERIFY(!options);
    QCOMPARE(options.error().kind, ErrorKind::InvalidInput);
    QVERIFY2(options.error().message.contains(message), qPrintable(options.error().message));
    QVERIFY2(!options.error().message.contains(QStringLiteral("hunter2")),
             qPrintable(options.error().message));
}

void SentinelUrlTest::writesBackWithoutPasswords()
{
    const QString url =
        QStringLiteral("rediss+sentinel://app:secret1@10.0.0.1:26380,[::1]:26381/main/2"
                       "?sentinel_user=watcher&sentinel_password=se%26cret2&replica=1");
    const auto options = ConnectionOptions::fromUrl(url);
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    const QString shown = options->toUrl();
    QVERIFY2(!shown.contains(QStringLiteral("secret")), qPrintable(shown));
    QVERIFY2(shown.startsWith(
                 QStringLiteral("rediss+sentinel://app:@10.0.0.1:26380,[::1]:26381/main/2?")),
             qPrintable(shown));
    // The full form parses back to the same options, both passwords included.
    const auto again = ConnectionOptions::fromUrl(options->toUrl(true));
    QVERIFY2(again, qPrintable(options->toUrl(true)));
    QCOMPARE(again->password, QStringLiteral("secret1"));
    QCOMPARE(again->sentinel.password, QStringLiteral("se&cret2"));
    QCOMPARE(again->sentinel.user, QStringLiteral("watcher"));
    QCOMPARE(again->sentinel.sentinels, options->sentinel.sentinels);
    QCOMPARE(again->sentinel.masterName, QStringLiteral("main"));
    QCOMPARE(again->database, 2);
    QVERIFY(again->sentinel.replica);
    QVERIFY(again->tls.enabled);
}

void SentinelUrlTest::redactsBothPasswords()
{
    const QString redacted = ConnectionOptions::redactUrl(QStringLiteral(
        "redis+sentinel://app:secret1@h1,h2/m?sentinel_password=secret2&timeout=5#x"));
    QCOMPARE(redacted,
             QStringLiteral("redis+sentinel://app:***@h1,h2/m?sentinel_password=***&timeout=5#x"));
    QCOMPARE(
        ConnectionOptions::redactUrl(QStringLiteral("redis+sentinel://h1/m?sentinel_password=s")),
        QStringLiteral("redis+sentinel://h1/m?sentinel_password=***"));
}

QTEST_GUILESS_MAIN(SentinelUrlTest)
#include "tst_SentinelUrl.moc"
