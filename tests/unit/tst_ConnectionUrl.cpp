// Connection URLs (redis://, rediss://, unix://): what each part sets, and what is refused with
// a message. No server needed.

#include "tollgate/ConnectionOptions.h"

#include <QtTest>

using namespace tollgate;

class ConnectionUrlTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fromUrl_data();
    void fromUrl();
    void fromUrlRejects_data();
    void fromUrlRejects();
};

void ConnectionUrlTest::fromUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("isUnix");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("socket");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<int>("db");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<QString>("ca");

    QTest::newRow("defaults") << QStringLiteral("redis://localhost") << false
                              << QStringLiteral("localhost") << 6379 << QString() << QString()
                              << QString() << 0 << false << QString();
    QTest::newRow("user, password, port, db")
        << QStringLiteral("redis://user:pass@host:6380/3") << false << QStringLiteral("host")
        << 6380 << QString() << QStringLiteral("user") << QStringLiteral("pass") << 3 << false
        << QString();
    QTest::newRow("password only")
        << QStringLiteral("redis://:secret@h") << false << QStringLiteral("h") << 6379 << QString()
        << QString() << QStringLiteral("secret") << 0 << false << QString();
    QTest::newRow("escaped password")
        << QStringLiteral("redis://u:p%40ss%3Aw@h/1") << false << QStringLiteral("h") << 6379
        << QString() << QStringLiteral("u") << QStringLiteral("p@ss:w") << 1 << false << QString();
    QTest::newRow("tls with ca") << QStringLiteral(
                                        "rediss://u:p@redis.example:6390/2?ca=/etc/ca.pem")
                                 << false << QStringLiteral("redis.example") << 6390 << QString()
                                 << QStringLiteral("u") << QStringLiteral("p") << 2 << true
                                 << QStringLiteral("/etc/ca.pem");
    QTest::newRow("unix") << QStringLiteral("unix:///tmp/x.sock") << true << QString() << 0
                          << QStringLiteral("/tmp/x.sock") << QString() << QString() << 0 << false
                          << QString();
    QTest::newRow("unix with db") << QStringLiteral("unix:///tmp/x.sock?db=4") << true << QString()
                                  << 0 << QStringLiteral("/tmp/x.sock") << QString() << QString()
                                  << 4 << false << QString();
}

void ConnectionUrlTest::fromUrl()
{
    QFETCH(QString, url);
    QFETCH(bool, isUnix);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, socket);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(int, db);
    QFETCH(bool, tls);
    QFETCH(QString, ca);

    const auto options = ConnectionOptions::fromUrl(url);
    QVERIFY2(options.ok(), options ? "" : qPrintable(options.error().message));
    QCOMPARE(options->transport == ConnectionOptions::Transport::Unix, isUnix);
    if (isUnix) {
        QCOMPARE(options->socketPath, socket);
    } else {
        QCOMPARE(options->host, host);
        QCOMPARE(int(options->port), port);
    }
    QCOMPARE(options->user, user);
    QCOMPARE(options->password, password);
    QCOMPARE(options->database, db);
    QCOMPARE(options->tls.enabled, tls);
    QCOMPARE(options->tls.caFile, ca);
    if (tls)
        QVERIFY(options->tls.verifyPeer); // on by default

    // toUrl() hides the password unless asked, and the full URL parses back to the same thing.
    const auto withoutPassword = ConnectionOptions::fromUrl(options->toUrl());
    QVERIFY(withoutPassword.ok());
    QVERIFY(withoutPassword->password.isEmpty());
    const auto again = ConnectionOptions::fromUrl(options->toUrl(true));
    QVERIFY(again.ok());
    QCOMPARE(again->password, password);
    QCOMPARE(again->database, db);
}

void ConnectionUrlTest::fromUrlRejects_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("bad scheme") << QStringLiteral("http://localhost:6379");
    QTest::newRow("no scheme") << QStringLiteral("localhost:6379");
    QTest::newRow("empty") << QString();
    QTest::newRow("bad db") << QStringLiteral("redis://localhost/abc");
    QTest::newRow("negative db") << QStringLiteral("redis://localhost/-1");
    QTest::newRow("bad port") << QStringLiteral("redis://localhost:99999");
    QTest::newRow("port not a number") << QStringLiteral("redis://localhost:port");
    QTest::newRow("no host") << QStringLiteral("redis:///0");
    QTest::newRow("unix without path") << QStringLiteral("unix://");
    QTest::newRow("unknown option") << QStringLiteral("redis://localhost?bogus=1");
    QTest::newRow("bad timeout") << QStringLiteral("redis://localhost?timeout=0");
}

void ConnectionUrlTest::fromUrlRejects()
{
    QFETCH(QString, url);
    const auto options = ConnectionOptions::fromUrl(url);
    QVERIFY(!options);
    QCOMPARE(options.error().kind, ErrorKind::InvalidInput);
    QVERIFY(!options.error().message.isEmpty());
}
QTEST_APPLESS_MAIN(ConnectionUrlTest)
#include "tst_ConnectionUrl.moc"
