// The audit contract on a Redis Cluster (docs/cluster.md "Audit on a cluster"), on a real one-node
// cluster owning every slot: a script may only touch one slot, so passing <p>:audit with a
// user's keys is refused as CROSSSLOT, and so is an empty key name (slot 0); passing the call's
// first key again turns the global mirror off and every write still lands with its own entry.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QtTest>

using tollgate::ScriptLibrary;
using tollgate::test::RedisServer;

class ClusterAuditTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void userScriptsNeedTheirOwnSlot_data();
    void userScriptsNeedTheirOwnSlot();
    void autoBanWithoutGlobalMirror();
    void policyWithoutGlobalMirror();

private:
    // EVALSHA of a library script (loaded first); the raw RESP reply.
    QByteArray eval(const QString& name, const QList<QByteArray>& keys,
                    const QList<QByteArray>& args);

    RedisServer m_redis;
};

void ClusterAuditTest::initTestCase()
{
    TOLLGATE_REQUIRE(
        m_redis, start({QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                        QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf")}));
    QCOMPARE(m_redis.command({"CLUSTER", "ADDSLOTSRANGE", "0", "16383"}), QByteArray("+OK\r\n"));
    QTRY_VERIFY_WITH_TIMEOUT(m_redis.command({"CLUSTER", "INFO"}).contains("cluster_state:ok"),
                             10000);
}

void ClusterAuditTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

QByteArray ClusterAuditTest::eval(const QString& name, const QList<QByteArray>& keys,
                                  const QList<QByteArray>& args)
{
    const tollgate::ScriptInfo* script = ScriptLibrary::instance().find(name);
    if (!script)
        return "-no such script";
    m_redis.command({"SCRIPT", "LOAD", script->source});
    return m_redis.command(
        QList<QByteArray>{"EVALSHA", script->sha1, QByteArray::number(keys.size())} + keys + args);
}

void ClusterAuditTest::userScriptsNeedTheirOwnSlot_data()
{
    QTest::addColumn<QByteArray>("globalKey");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("tg:audit: another slot") << QByteArray("tg:audit") << false;
    QTest::newRow("empty name: slot 0") << QByteArray() << false;
    QTest::newRow("the user's stream again: no mirror") << QByteArray("tg:{ann}:audit") << true;
}

void ClusterAuditTest::userScriptsNeedTheirOwnSlot()
{
    QFETCH(QByteArray, globalKey);
    QFETCH(bool, accepted);
    const QByteArray ban =
        eval(QStringLiteral("ban"), {"tg:{ann}:ban", "tg:{ann}:audit", globalKey},
             {"ann", "", "ops", "spam", "60000", "0", ""});
    const QByteArray reset =
        eval(QStringLiteral("reset"), {"tg:{ann}:audit", globalKey, "tg:{ann}:like:fw:1000"},
             {"ann", "", "ops", "why", ""});
    const QByteArray unban =
        eval(QStringLiteral("unban"), {"tg:{ann}:audit", globalKey, "tg:{ann}:ban"},
             {"ann", "", "ops", "appeal", ""});
    for (const QByteArray& reply : {ban, reset, unban}) {
        if (accepted)
            QVERIFY2(!reply.startsWith('-'), reply.constData());
        else
            QVERIFY2(reply.startsWith("-CROSSSLOT"), reply.constData());
    }
    // Accepted: three entries in the user's stream, no global stream; refused: nothing at all.
    QCOMPARE(m_redis.command({"XLEN", "tg:{ann}:audit"}),
             accepted ? QByteArray(":3\r\n") : QByteArray(":0\r\n"));
    QCOMPARE(m_redis.command({"DBSIZE"}), accepted ? QByteArray(":1\r\n") : QByteArray(":0\r\n"));
}

void ClusterAuditTest::autoBanWithoutGlobalMirror()
{
    const QList<QByteArray> keys{"tg:{bo}:ban",   "tg:{bo}:like:ban", "tg:{bo}:overrides",
                                 "tg:{bo}:audit", "tg:{bo}:audit",    "tg:{bo}:like:fw:60000"};
    const QList<QByteArray> args{"hit", "fixed_window", "1", "0",         "0", "3600000", "", "0",
                                 "bo",  "like",         "",  "first_hit", "1", "60000"};
    QVERIFY(eval(QStringLiteral("hit"), keys, args).startsWith("*7"));
    const QByteArray denied = eval(QStringLiteral("hit"), keys, args);
    QVERIFY2(denied.contains("deny"), denied.constData());
    QCOMPARE(m_redis.command({"EXISTS", "tg:{bo}:like:ban"}), QByteArray(":1\r\n"));
    QCOMPARE(m_redis.command({"XLEN", "tg:{bo}:audit"}), QByteArray(":1\r\n"));
}

void ClusterAuditTest::policyWithoutGlobalMirror()
{
    QVERIFY(eval(QStringLiteral("policy_set"), {"tg:policy:like", "", "tg:policies"},
                 {"0", "ops", "", "", "windows", "5/1000"})
                .startsWith("-CROSSSLOT"));
    QCOMPARE(eval(QStringLiteral("policy_set"),
                  {"tg:policy:like", "tg:policy:like", "tg:policy:like"},
                  {"0", "ops", "", "", "windows", "5/1000"}),
             QByteArray(":1\r\n"));
    QCOMPARE(eval(QStringLiteral("policy_delete"),
                  {"tg:policy:like", "tg:policy:like", "tg:policy:like"}, {"1", "ops", ""}),
             QByteArray(":1\r\n"));
    QCOMPARE(m_redis.command({"DBSIZE"}), QByteArray(":0\r\n"));
}

QTEST_GUILESS_MAIN(ClusterAuditTest)
#include "tst_ClusterAudit.moc"
