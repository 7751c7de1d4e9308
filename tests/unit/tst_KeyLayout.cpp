// The key layout of a call by the server's mode (core/keys/KeyLayout): standalone keys as
// always; on a Redis Cluster one slot per script call, and the policy keys under "{:}", which
// no escaped id can produce and which parse as policies, never as users. No server needed.

#include "core/cluster/KeySlot.h"
#include "core/keys/KeyLayout.h"
#include "core/limiter/PreparedHit.h"

#include <QtTest>

using namespace tollgate;
using Kind = KeySchema::Parsed::Kind;

Q_DECLARE_METATYPE(tollgate::KeySchema::Parsed::Kind)

class KeyLayoutTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void standaloneKeysAreUnchanged();
    void clusterPolicyKeysShareOneSlot();
    void clusterMirrorIsTheCallsOwnStream();
    void clusterKeysParse_data();
    void clusterKeysParse();
    void noIdReachesTheSharedTag_data();
    void noIdReachesTheSharedTag();
    void subjectPatternSeesSharedKeysOnlyAsNonUsers();
    void deletionAuditStreamSharesTheKeysSlot();
    void preparedHitFollowsTheLayout();
};

void KeyLayoutTest::standaloneKeysAreUnchanged()
{
    const KeySchema schema;
    const KeyLayout layout(schema, false);
    QCOMPARE(layout.policyKey("like"), QByteArray("tg:policy:like"));
    QCOMPARE(layout.policyIndexKey(), QByteArray("tg:policies"));
    QCOMPARE(layout.policyAuditKey(), QByteArray("tg:audit"));
    QCOMPARE(layout.policyPattern(), QByteArray("tg:policy:*"));
    QCOMPARE(layout.auditMirror(schema.userAuditKey("u")), QByteArray("tg:audit"));
    QCOMPARE(layout.policyKey("a:b"), schema.policyKey("a:b"));
    QCOMPARE(*layout.auditStreamBeside("tg:stats:like"), QByteArray("tg:audit"));
}

void KeyLayoutTest::clusterPolicyKeysShareOneSlot()
{
    const KeyLayout layout(KeySchema("app"), true);
    QCOMPARE(layout.policyKey("like"), QByteArray("app:{:}:policy:like"));
    QCOMPARE(layout.policyIndexKey(), QByteArray("app:{:}:policies"));
    QCOMPARE(layout.policyAuditKey(), QByteArray("app:{:}:audit"));
    QCOMPARE(layout.policyPattern(), QByteArray("app:{:}:policy:*"));
    const int slot = keySlot(layout.policyIndexKey());
    for (const QByteArray& action : {QByteArray("like"), QByteArray("a:b{c}"), QByteArray("Zoë")})
        QCOMPARE(keySlot(layout.policyKey(action)), slot);
    QCOMPARE(keySlot(layout.policyAuditKey()), slot);
}

void KeyLayoutTest::clusterMirrorIsTheCallsOwnStream()
{
    const KeySchema schema;
    const KeyLayout layout(schema, true);
    const QByteArray stream = schema.userAuditKey("alice");
    // The scripts read "the call's own stream again" as "no global mirror".
    QCOMPARE(layout.auditMirror(stream), stream);
}

void KeyLayoutTest::clusterKeysParse_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QByteArray>("action");
    const KeyLayout cluster(KeySchema(), true);
    const KeyLayout standalone(KeySchema(), false);
    QTest::newRow("cluster policy")
        << cluster.policyKey("a:b c") << Kind::Policy << QByteArray("a:b c");
    QTest::newRow("cluster history")
        << cluster.policyHistoryKey("a:b c") << Kind::PolicyHistory << QByteArray("a:b c");
    QTest::newRow("cluster index") << cluster.policyIndexKey() << Kind::PolicyIndex << QByteArray();
    QTest::newRow("cluster audit") << cluster.policyAuditKey() << Kind::Audit << QByteArray();
    QTest::newRow("standalone index")
        << standalone.policyIndexKey() << Kind::PolicyIndex << QByteArray();
    QTest::newRow("unknown {:} key") << QByteArray("tg:{:}:ban") << Kind::Foreign << QByteArray();
    QTest::newRow("empty {:} policy")
        << QByteArray("tg:{:}:policy:") << Kind::Foreign << QByteArray();
    QTest::newRow("raw colon action")
        << QByteArray("tg:{:}:policy:a:b") << Kind::Foreign << QByteArray();
}

void KeyLayoutTest::clusterKeysParse()
{
    QFETCH(QByteArray, key);
    QFETCH(Kind, kind);
    QFETCH(QByteArray, action);
    const KeySchema::Parsed parsed = KeySchema().parse(key);
    QCOMPARE(parsed.kind, kind);
    QCOMPARE(parsed.action, action);
    QVERIFY(parsed.user.isEmpty()); // never a user, so never a subject or a bad user key
}

void KeyLayoutTest::noIdReachesTheSharedTag_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::newRow("colon") << QByteArray(":");
    QTest::newRow("braced colon") << QByteArray("{:}");
    QTest::newRow("tag injection") << QByteArray(":}:policy:x");
    QTest::newRow("escaped colon") << QByteArray("%3A");
}

void KeyLayoutTest::noIdReachesTheSharedTag()
{
    QFETCH(QByteArray, user);
    const KeySchema schema;
    const QByteArray shared = hashTagOf(KeyLayout(schema, true).policyIndexKey());
    QCOMPARE(shared, QByteArray(":"));
    for (const QByteArray& key :
         {schema.userAuditKey(user), schema.userBanKey(user), schema.actionBanKey(user, ":"),
          schema.stateKey(user, "like", Algorithm::FixedWindow, 1000)}) {
        QVERIFY2(hashTagOf(key) != shared, key.constData());
        QCOMPARE(schema.parse(key).user, user);
    }
}

void KeyLayoutTest::subjectPatternSeesSharedKeysOnlyAsNonUsers()
{
    // SCAN <p>:{* (subjects, repair) matches the {:} keys; they must parse without a user.
    const KeySchema schema;
    const KeyLayout layout(schema, true);
    const QByteArray pattern = schema.allUsersPattern();
    QVERIFY(pattern.endsWith('*'));
    for (const QByteArray& key :
         {layout.policyKey("like"), layout.policyIndexKey(), layout.policyAuditKey()}) {
        QVERIFY(key.startsWith(pattern.chopped(1)));
        QVERIFY(schema.parse(key).user.isEmpty());
        QVERIFY(schema.parse(key).kind != Kind::Foreign);
    }
}

void KeyLayoutTest::deletionAuditStreamSharesTheKeysSlot()
{
    const KeySchema schema;
    const KeyLayout layout(schema, true);
    const QByteArray audit = schema.userAuditKey("bob");
    QCOMPARE(*layout.auditStreamBeside(audit), audit);
    QCOMPARE(*layout.auditStreamBeside(schema.stateKey("bob", "x", Algorithm::SlidingLog, 9)),
             audit);
    QCOMPARE(*layout.auditStreamBeside("tg:{bob}:note"), audit); // a foreign key in bob's tag
    QCOMPARE(*layout.auditStreamBeside(layout.policyKey("x")), layout.policyAuditKey());
    const Result<QByteArray> stats = layout.auditStreamBeside(schema.statsKey("like"));
    QVERIFY(!stats);
    QCOMPARE(stats.error().kind, ErrorKind::InvalidInput);
    QVERIFY(stats.error().message.contains(QStringLiteral("tg:stats:like")));
}

void KeyLayoutTest::preparedHitFollowsTheLayout()
{
    Policy policy;
    policy.action = "like";
    policy.windows = {{10, 60'000}};
    policy.banMs = 60'000;
    const KeySchema schema;
    const auto sent = [&](bool cluster) {
        auto prepared = PreparedHit::prepare(policy, KeyLayout(schema, cluster));
        return prepared ? (*prepared)->command(false, "ann", 0)->bytes() : QByteArray();
    };
    // RESP bulk strings: "$14\r\ntg:{ann}:audit\r\n".
    const QByteArray userStream = "\r\ntg:{ann}:audit\r\n";
    const QByteArray globalStream = "\r\ntg:audit\r\n";
    const QByteArray standalone = sent(false);
    QCOMPARE(standalone.count(userStream), qsizetype(1));
    QCOMPARE(standalone.count(globalStream), qsizetype(1));
    // On a cluster KEYS[4] is KEYS[3] again: one slot, no mirror (hit.lua's contract).
    const QByteArray cluster = sent(true);
    QCOMPARE(cluster.count(userStream), qsizetype(2));
    QCOMPARE(cluster.count(globalStream), qsizetype(0));
    QVERIFY(cluster.indexOf(userStream) < cluster.indexOf("tg:{ann}:like:fw:60000"));

    // A policy that never bans or warns sends no audit stream at all, on either layout.
    policy.banMs = 0;
    for (bool onCluster : {false, true}) {
        const QByteArray plain = sent(onCluster);
        QCOMPARE(plain.count(userStream), qsizetype(0));
        QCOMPARE(plain.count(globalStream), qsizetype(0));
        QVERIFY(plain.contains("tg:{ann}:like:fw:60000"));
    }
}

QTEST_GUILESS_MAIN(KeyLayoutTest)
#include "tst_KeyLayout.moc"
