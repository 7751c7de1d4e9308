// The cluster key layout (core/keys/KeyLayout) against a real three-primary cluster, through
// ClusterRouter: each write script called with the keys the layout gives (the call's own stream
// as the global mirror, the policies under "{:}") runs on one node, for users on every
// primary, and writes its audit entry. A layout that spanned slots would be refused before
// sending; the standalone layout is, as the control.

#include "core/cluster/ClusterRouter.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TestEnv.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::RedisCluster;

class ClusterKeyLayoutTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void userWritesOnEveryPrimary();
    void policyWritesShareTheirSlot();
    void standaloneLayoutIsRefused();

private:
    Result<Reply> run(const Command& command);
    Result<Reply> script(const QString& name, const Command& keys, const Command& args);
    qint64 length(const QByteArray& stream);

    RedisCluster m_cluster;
    std::unique_ptr<ClusterRouter> m_router;
    const KeySchema m_schema;
    const KeyLayout m_layout{m_schema, true};
    QList<QByteArray> m_users; // one per primary
};

void ClusterKeyLayoutTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 0));
    m_router = std::make_unique<ClusterRouter>(*ConnectionOptions::fromUrl(m_cluster.seedUrl()));
    m_router->open();
    QTRY_VERIFY(m_router->isReady());
    for (int i = 0; m_users.size() < m_cluster.size() && i < 1000; ++i) {
        const QByteArray user = "u " + QByteArray::number(i);
        if (m_cluster.nodeOfKey(m_schema.userAuditKey(user)) == m_users.size())
            m_users << user;
    }
    QCOMPARE(m_users.size(), m_cluster.size());
    for (const ScriptInfo& info : ScriptLibrary::instance().scripts())
        for (int node = 0; node < m_cluster.size(); ++node)
            m_cluster.node(node).command({"SCRIPT", "LOAD", info.source});
}

Result<Reply> ClusterKeyLayoutTest::run(const Command& command)
{
    return tollgate::test::await<Reply>([&](QObject* context, Callback<Reply> done) {
        m_router->execute(command, context, std::move(done));
    });
}

Result<Reply> ClusterKeyLayoutTest::script(const QString& name, const Command& keys,
                                           const Command& args)
{
    const ScriptInfo* info = ScriptLibrary::instance().find(name);
    if (!info)
        return Error{ErrorKind::NotFound, name};
    return run(Command{"EVALSHA", info->sha1, QByteArray::number(keys.size())} + keys + args);
}

qint64 ClusterKeyLayoutTest::length(const QByteArray& stream)
{
    const Result<Reply> reply = run({"XLEN", stream});
    return reply ? reply->toInteger().value_or(-1) : -1;
}

void ClusterKeyLayoutTest::userWritesOnEveryPrimary()
{
    for (const QByteArray& user : m_users) {
        const QByteArray stream = m_schema.userAuditKey(user);
        const QByteArray mirror = m_layout.auditMirror(stream);
        const QByteArray counter = m_schema.stateKey(user, "like", Algorithm::FixedWindow, 60'000);
        QVERIFY(run({"SET", counter, "3"})); // no TTL: for repair
        const QList<Result<Reply>> replies{
            script(QStringLiteral("ban"), {m_schema.userBanKey(user), stream, mirror},
                   {user, "", "ops", "spam", "60000", "0", ""}),
            script(QStringLiteral("unban"), {stream, mirror, m_schema.userBanKey(user)},
                   {user, "", "ops", "appeal", ""}),
            script(QStringLiteral("repair"), {stream, mirror, counter}, {"fix", "ops", "lost TTL"}),
            script(QStringLiteral("reset"), {stream, mirror, counter},
                   {user, "like", "ops", "fresh", ""}),
            script(QStringLiteral("delete"), {stream + "x", *m_layout.auditStreamBeside(stream)},
                   {user, "", "ops", "cleanup", ""}),
        };
        for (const Result<Reply>& reply : replies)
            QVERIFY2(reply, qPrintable(reply ? QString() : reply.error().toString()));
        QCOMPARE(length(stream), qint64(5)); // ban, unban, repair, reset, delete_key
    }
    const Result<Reply> global = run({"EXISTS", m_schema.auditKey()});
    QVERIFY(global);
    QCOMPARE(global->toInteger().value_or(-1), qint64(0));
}

void ClusterKeyLayoutTest::policyWritesShareTheirSlot()
{
    const Command keys{m_layout.policyKey("like"), m_layout.policyAuditKey(),
                       m_layout.policyIndexKey()};
    auto set =
        script(QStringLiteral("policy_set"), keys, {"0", "ops", "", "", "windows", "60000:5"});
    QVERIFY2(set, qPrintable(set ? QString() : set.error().toString()));
    auto reindexed = script(QStringLiteral("policy_reindex"),
                            {m_layout.policyIndexKey(), m_layout.policyKey("like")}, {});
    QVERIFY2(reindexed, qPrintable(reindexed ? QString() : reindexed.error().toString()));
    QCOMPARE(reindexed->toInteger().value_or(-1), qint64(1));
    auto removed = script(QStringLiteral("policy_delete"), keys, {"1", "ops", ""});
    QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    QCOMPARE(length(m_layout.policyAuditKey()), qint64(2)); // policy, policy_delete
}

void ClusterKeyLayoutTest::standaloneLayoutIsRefused()
{
    const KeyLayout standalone(m_schema, false);
    const QByteArray stream = m_schema.userAuditKey(m_users.front());
    auto ban =
        script(QStringLiteral("ban"),
               {m_schema.userBanKey(m_users.front()), stream, standalone.auditMirror(stream)},
               {m_users.front(), "", "ops", "spam", "60000", "0", ""});
    QVERIFY(!ban);
    QCOMPARE(ban.error().kind, ErrorKind::InvalidInput); // refused before sending
}

QTEST_MAIN(ClusterKeyLayoutTest)
#include "tst_ClusterKeyLayout.moc"
