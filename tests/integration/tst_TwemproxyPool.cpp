// What a real nutcracker (Twemproxy 0.5) does that Tollgate's Twemproxy mode is built on: which
// commands it forwards and which close the connection, where hash_tag "{}" puts keys, its stats
// port, and how a paused backend is ejected and comes back. The naive two-command counter
// leaves keys without a TTL through ejections: the control the scripts are measured against.

#include "tests/support/NaiveCounterLoad.h"
#include "tests/support/Twemproxy.h"

#include <QtTest>

using tollgate::test::NaiveCounterLoad;
using tollgate::test::Twemproxy;

class TwemproxyPoolTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void forwardsKeyedCommands();
    void closesOnCommandsItDoesNotForward_data();
    void closesOnCommandsItDoesNotForward();
    void hashTagKeepsAUsersKeysTogether();
    void statsPortNamesEveryBackend();
    void pausedBackendIsEjectedAndReturns();
    void naiveCounterLosesTtlsThroughEjections();

private:
    Twemproxy m_pool;
};

void TwemproxyPoolTest::initTestCase()
{
    Twemproxy::Options options;
    options.backends = 3;
    QVERIFY2(m_pool.start(options), qPrintable(m_pool.errorString()));
}

void TwemproxyPoolTest::forwardsKeyedCommands()
{
    QCOMPARE(m_pool.command({"SET", "tg:{a}:x", "1"}), QByteArray("+OK\r\n"));
    QCOMPARE(m_pool.command({"GET", "tg:{a}:x"}), QByteArray("$1\r\n1\r\n"));
    // EVAL with a key goes to that key's backend; EVALSHA of an unknown script says NOSCRIPT.
    QCOMPARE(m_pool.command({"EVAL", "return KEYS[1]", "1", "tg:{a}:x"}),
             QByteArray("$8\r\ntg:{a}:x\r\n"));
    QVERIFY(m_pool.command({"EVALSHA", QByteArray(40, 'a'), "1", "tg:{a}:x"})
                .startsWith("-NOSCRIPT"));
    QCOMPARE(m_pool.command({"PTTL", "tg:{a}:x"}), QByteArray(":-1\r\n"));
    QCOMPARE(m_pool.command({"PING"}), QByteArray("+PONG\r\n"));
}

void TwemproxyPoolTest::closesOnCommandsItDoesNotForward_data()
{
    QTest::addColumn<QList<QByteArray>>("command");
    QTest::newRow("CLIENT SETNAME") << QList<QByteArray>{"CLIENT", "SETNAME", "tollgate"};
    QTest::newRow("HELLO") << QList<QByteArray>{"HELLO", "2"};
    QTest::newRow("SELECT") << QList<QByteArray>{"SELECT", "0"};
    QTest::newRow("INFO") << QList<QByteArray>{"INFO"};
    QTest::newRow("TIME") << QList<QByteArray>{"TIME"};
    QTest::newRow("SCRIPT LOAD") << QList<QByteArray>{"SCRIPT", "LOAD", "return 1"};
    QTest::newRow("EVAL without keys") << QList<QByteArray>{"EVAL", "return 1", "0"};
    QTest::newRow("EVALSHA_RO") << QList<QByteArray>{"EVALSHA_RO", QByteArray(40, 'a'), "1", "k"};
    QTest::newRow("SCAN") << QList<QByteArray>{"SCAN", "0"};
    QTest::newRow("SUBSCRIBE") << QList<QByteArray>{"SUBSCRIBE", "tg:events"};
    QTest::newRow("PUBLISH") << QList<QByteArray>{"PUBLISH", "tg:events", "x"};
    QTest::newRow("XADD") << QList<QByteArray>{"XADD", "tg:{a}:audit", "*", "f", "v"};
    QTest::newRow("XREVRANGE") << QList<QByteArray>{"XREVRANGE", "tg:{a}:audit", "+", "-"};
    QTest::newRow("SLOWLOG") << QList<QByteArray>{"SLOWLOG", "GET"};
    QTest::newRow("DBSIZE") << QList<QByteArray>{"DBSIZE"};
}

void TwemproxyPoolTest::closesOnCommandsItDoesNotForward()
{
    QFETCH(QList<QByteArray>, command);
    // No reply at all: nutcracker drops the client's connection.
    QCOMPARE(m_pool.command(command, 2000), QByteArray());
}

void TwemproxyPoolTest::hashTagKeepsAUsersKeysTogether()
{
    // Every key of a user, and the "{:}" policy keys of the cluster layout, land on one backend
    // each; keys without a tag (the one-server layout's <p>:policies) hash on the whole key.
    for (const QByteArray& user : {QByteArray("alice"), QByteArray("bob"), QByteArray(":")}) {
        const QByteArray base = "tg:{" + user + "}:";
        QCOMPARE(m_pool.command({"SET", base + "spam:fw:60000", "1"}), QByteArray("+OK\r\n"));
        QCOMPARE(m_pool.command({"SET", base + "audit", "1"}), QByteArray("+OK\r\n"));
        QCOMPARE(m_pool.command({"SET", base + "policy:spam", "1"}), QByteArray("+OK\r\n"));
        const int home = m_pool.backendHolding(base + "spam:fw:60000");
        QVERIFY(home >= 0);
        QCOMPARE(m_pool.backendHolding(base + "audit"), home);
        QCOMPARE(m_pool.backendHolding(base + "policy:spam"), home);
    }
}

void TwemproxyPoolTest::statsPortNamesEveryBackend()
{
    const QJsonObject pool = m_pool.poolStats();
    QVERIFY2(!pool.isEmpty(), "no pool in the stats port's JSON");
    QVERIFY(pool.contains(QStringLiteral("server_ejects")));
    for (int i = 0; i < m_pool.backendCount(); ++i) {
        const QJsonObject server = pool.value(Twemproxy::backendName(i)).toObject();
        QVERIFY2(server.contains(QStringLiteral("server_ejected_at")),
                 qPrintable(Twemproxy::backendName(i)));
        QVERIFY(server.contains(QStringLiteral("server_timedout")));
    }
}

void TwemproxyPoolTest::pausedBackendIsEjectedAndReturns()
{
    // A key on backend 0, counted there before the pause.
    QByteArray key;
    for (int n = 0; key.isEmpty(); ++n) {
        const QByteArray candidate = "tg:{eject" + QByteArray::number(n) + "}:x";
        QCOMPARE(m_pool.command({"SET", candidate, "1"}), QByteArray("+OK\r\n"));
        if (m_pool.backendHolding(candidate) == 0)
            key = candidate;
    }
    const qint64 before = m_pool.ejections();
    QVERIFY(m_pool.pause(0));
    // The first command times out with an error reply (never a closed connection); then the
    // backend is ejected and its keys go to another one.
    QVERIFY(m_pool.command({"INCR", key}).startsWith("-ERR"));
    QTRY_VERIFY_WITH_TIMEOUT(m_pool.command({"INCR", key}).startsWith(':'), 5000);
    QVERIFY(m_pool.backendHolding(key) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_pool.ejections() > before, 5000);
    QVERIFY(m_pool.resume(0));
    // After server_retry_timeout the backend is back and answers for its keys again.
    QTRY_COMPARE_WITH_TIMEOUT(m_pool.command({"GET", key}), QByteArray("$1\r\n2\r\n"), 10000);
}

void TwemproxyPoolTest::naiveCounterLosesTtlsThroughEjections()
{
    NaiveCounterLoad naive(m_pool.host(), m_pool.port(), "naive:");
    naive.start();
    for (int round = 0; round < 2; ++round) {
        QTest::qWait(1000);
        QVERIFY(m_pool.pause(0));
        QTest::qWait(2500);
        QVERIFY(m_pool.resume(0));
    }
    QTest::qWait(2000);
    naive.stop();
    const qint64 lost = m_pool.keysWithoutTtl(naive.pattern());
    qInfo() << "naive counter:" << naive.operations() << "operations," << naive.errors()
            << "errors," << lost << "keys without TTL";
    QVERIFY2(lost > 0, "the naive control left no key without a TTL: the test cannot fail");
}

QTEST_GUILESS_MAIN(TwemproxyPoolTest)
#include "tst_TwemproxyPool.moc"
