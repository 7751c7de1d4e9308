// The parts of the Twemproxy mode that need no proxy: nutcracker's YAML pools, the URL, and the
// commands a Twemproxy client lets through (and how it rewrites a read-only script call).

#include "core/client/NutcrackerConfig.h"
#include "core/client/TwemproxyCommands.h"
#include "tollgate/ConnectionOptions.h"

#include "tests/support/ResultText.h"

#include <QtTest>

using namespace tollgate;

class TwemproxyConfigTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsThePoolAsked();
    void refusesWhatItCannotRead_data();
    void refusesWhatItCannotRead();
    void urlRoundTrip();
    void forwardsWhatTheProxyForwards_data();
    void forwardsWhatTheProxyForwards();
    void readOnlyScriptsGoAsTheirWritingForm();
    void timeGoesAsAScript();
};

void TwemproxyConfigTest::readsThePoolAsked()
{
    const QByteArray yaml = "# two pools\n"
                            "other:\n"
                            "  listen: 0.0.0.0:1\n"
                            "  servers:\n"
                            "   - 10.0.0.1:6379:1\n"
                            "tollgate:\n"
                            "  listen: 127.0.0.1:22121  # the proxy\n"
                            "  hash_tag: \"{}\"\n"
                            "  redis: true\n"
                            "  servers:\n"
                            "   - 10.0.3.7:6379:1 r1\n"
                            "   - 'redis-b:6380:2 r2'\n";
    auto pool = parseNutcrackerPool(yaml, QStringLiteral("tollgate"));
    QVERIFY2(pool, tollgate::test::whyNot(pool).constData());
    QCOMPARE(pool->listen, QStringLiteral("127.0.0.1:22121"));
    QCOMPARE(pool->hashTag, QStringLiteral("{}"));
    QVERIFY(pool->redis);
    QCOMPARE(int(pool->servers.size()), 2);
    QCOMPARE(pool->servers[0].host, QStringLiteral("10.0.3.7"));
    QCOMPARE(pool->servers[1].host, QStringLiteral("redis-b"));
    QCOMPARE(pool->servers[1].port, quint16(6380));
}

void TwemproxyConfigTest::refusesWhatItCannotRead_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("says");
    QTest::newRow("no such pool") << QByteArray("a:\n  servers:\n   - h:1:1\n")
                                  << QStringLiteral("no pool named tollgate");
    QTest::newRow("no servers") << QByteArray("tollgate:\n  listen: h:1\n")
                                << QStringLiteral("lists no servers");
    QTest::newRow("bad server") << QByteArray("tollgate:\n  servers:\n   - h:port:1\n")
                                << QStringLiteral("line 3");
    QTest::newRow("not a pool") << QByteArray("tollgate\n") << QStringLiteral("line 1");
}

void TwemproxyConfigTest::refusesWhatItCannotRead()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, says);
    auto pool = parseNutcrackerPool(yaml, QStringLiteral("tollgate"));
    QVERIFY(!pool);
    QVERIFY2(pool.error().message.contains(says), qPrintable(pool.error().message));
}

void TwemproxyConfigTest::urlRoundTrip()
{
    auto options = ConnectionOptions::fromUrl(
        QStringLiteral("redis+twemproxy://:secret@proxy:22121?backends=a:6379,b:6380&timeout=200"));
    QVERIFY2(options, tollgate::test::whyNot(options).constData());
    QVERIFY(options->twemproxy.enabled);
    QCOMPARE(options->password, QStringLiteral("secret"));
    QCOMPARE(int(options->twemproxy.backends.size()), 2);
    QCOMPARE(options->twemproxy.backends[1].port, quint16(6380));
    QVERIFY(!options->followCluster);
    auto again = ConnectionOptions::fromUrl(options->toUrl(true));
    QVERIFY2(again, qPrintable(options->toUrl(true)));
    QVERIFY(again->twemproxy.enabled);
    QCOMPARE(int(again->twemproxy.backends.size()), 2);
    QVERIFY(!options->toUrl().contains(QStringLiteral("secret")));
}

void TwemproxyConfigTest::forwardsWhatTheProxyForwards_data()
{
    QTest::addColumn<Command>("command");
    QTest::addColumn<bool>("forwarded");
    QTest::newRow("EVALSHA with a key") << Command{"EVALSHA", "abc", "1", "k"} << true;
    QTest::newRow("evalsha without") << Command{"evalsha", "abc", "0"} << false;
    QTest::newRow("HGETALL") << Command{"HGETALL", "k"} << true;
    QTest::newRow("pttl") << Command{"pttl", "k"} << true;
    QTest::newRow("PING") << Command{"PING"} << true;
    QTest::newRow("SCAN") << Command{"SCAN", "0"} << false;
    QTest::newRow("INFO") << Command{"INFO"} << false;
    QTest::newRow("XADD") << Command{"XADD", "k", "*", "f", "v"} << false;
    QTest::newRow("SCRIPT") << Command{"SCRIPT", "LOAD", "x"} << false;
    QTest::newRow("SUBSCRIBE") << Command{"SUBSCRIBE", "c"} << false;
}

void TwemproxyConfigTest::forwardsWhatTheProxyForwards()
{
    QFETCH(Command, command);
    QFETCH(bool, forwarded);
    QCOMPARE(bool(twemproxyForwards(EncodedCommand::fromArgs(command).bytes())), forwarded);
    QCOMPARE(bool(twemproxyCommand(EncodedCommand::fromArgs(command))), forwarded);
}

void TwemproxyConfigTest::timeGoesAsAScript()
{
    auto time = twemproxyCommand(EncodedCommand::fromArgs({"TIME"}));
    QVERIFY(time);
    QVERIFY(time->bytes().contains("redis.call('TIME')"));
    QVERIFY(twemproxyForwards(time->bytes()));
    // Keyed reads the proxy does not forward run as a script with the key as its key, so the
    // proxy sends them to the key's backend.
    for (const Command& read : {Command{"PEXPIRETIME", "tg:{u}:ban"}, Command{"XLEN", "tg:{u}:audit"},
                                Command{"XREVRANGE", "tg:{u}:audit", "+", "-", "COUNT", "5"}}) {
        auto sent = twemproxyCommand(EncodedCommand::fromArgs(read));
        QVERIFY(sent);
        QVERIFY(twemproxyForwards(sent->bytes()));
        const std::optional<Command> args = decodeCommand(sent->bytes());
        QVERIFY(args);
        QCOMPARE(args->value(0), QByteArray("EVAL"));
        QCOMPARE(args->value(2), QByteArray("1"));
        QCOMPARE(args->value(3), read.at(1));
        QCOMPARE(args->mid(4), Command{read.front()} + read.mid(2));
    }
    // A write the proxy does not forward is not turned into a script: refused.
    QVERIFY(!twemproxyCommand(EncodedCommand::fromArgs({"XADD", "k", "*", "f", "v"})));
}

void TwemproxyConfigTest::readOnlyScriptsGoAsTheirWritingForm()
{
    auto sent = twemproxyCommand(EncodedCommand::fromArgs({"EVALSHA_RO", "abc", "1", "k", "a"}));
    QVERIFY(sent);
    QCOMPARE(sent->bytes(), EncodedCommand::fromArgs({"EVALSHA", "abc", "1", "k", "a"}).bytes());
    QVERIFY(!twemproxyCommand(EncodedCommand::fromArgs({"EVALSHA_RO", "abc", "0"})));
    QCOMPARE(decodeCommand(EncodedCommand::fromArgs({"A", QByteArray("b\r\nc", 4)}).bytes()),
             std::optional<Command>(Command{"A", QByteArray("b\r\nc", 4)}));
}

QTEST_GUILESS_MAIN(TwemproxyConfigTest)
#include "tst_TwemproxyConfig.moc"
