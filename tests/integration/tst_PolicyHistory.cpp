// Policy history (policy_set.lua, policy_delete.lua and policy_restore.lua): every save and
// delete keeps the revision it replaces, bounded, atomically with the change; rollback and
// restore are new, audited, compare-and-set revisions. Also registered OnCluster.

#include "core/policies/PolicyHistory.h"
#include "tests/support/CoreFixture.h"

#include "core/scripts/ScriptRunner.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class PolicyHistoryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void saveKeepsThePreviousRevision();
    void historyIsBoundedAndPrunedRevisionsAreNamed();
    void rollbackIsANewAuditedRevision();
    void rollbackConflictsWriteNothing();
    void badRollbacksAreRefused();
    void deletedPolicyIsRestored();
    void oddActionIds_data();
    void oddActionIds();
    void unknownFieldsRoundTrip();
    void shadowRoundTrips();
    void aclRefusalWritesNothing();
    void historyOfTheWrongTypeIsNamed();

private:
    Result<PolicyHistory> history(const QByteArray& action);
    Result<qint64> rollback(const QByteArray& action, qint64 from, qint64 to,
                            const PolicyStore* store = nullptr);
    Result<qint64> restore(const QByteArray& action, const PolicyStore* store = nullptr);
    // Saves `revisions` revisions of `action`, limits 1, 2, 3, ...; the last revision.
    qint64 saveRevisions(const QByteArray& action, int revisions);
    // Every key of ours with its DUMP (nothing written = the same snapshot).
    QMap<QByteArray, QByteArray> snapshot(const QByteArray& action);
    QByteArray newestAudit(const char* field);

    CoreFixture m_core;
};

void PolicyHistoryTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void PolicyHistoryTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<PolicyHistory> PolicyHistoryTest::history(const QByteArray& action)
{
    return await<PolicyHistory>([&](QObject* context, Callback<PolicyHistory> done) {
        m_core.policies().history(action, context, std::move(done));
    });
}

Result<qint64> PolicyHistoryTest::rollback(const QByteArray& action, qint64 from, qint64 to,
                                           const PolicyStore* store)
{
    return await<qint64>([&](QObject* context, Callback<qint64> done) {
        (store ? *store : m_core.policies())
            .rollback(action, from, to, QStringLiteral("alice"), QStringLiteral("bad deploy"),
                      context, std::move(done));
    });
}

Result<qint64> PolicyHistoryTest::restore(const QByteArray& action, const PolicyStore* store)
{
    return await<qint64>([&](QObject* context, Callback<qint64> done) {
        (store ? *store : m_core.policies())
            .restore(action, 0, QStringLiteral("bob"), QStringLiteral("deleted by mistake"),
                     context, std::move(done));
    });
}

qint64 PolicyHistoryTest::saveRevisions(const QByteArray& action, int revisions)
{
    Policy policy = makePolicy(action, 1, 60000);
    qint64 revision = 0;
    for (int i = 1; i <= revisions; ++i) {
        policy.windows[0].limit = i;
        policy.revision = revision;
        const auto saved = m_core.save(policy, QStringLiteral("ops"));
        if (!saved)
            return -1;
        revision = *saved;
    }
    return revision;
}

QMap<QByteArray, QByteArray> PolicyHistoryTest::snapshot(const QByteArray& action)
{
    const KeyLayout layout = m_core.layout();
    QMap<QByteArray, QByteArray> keys;
    for (const QByteArray& key : {layout.policyKey(action), layout.policyHistoryKey(action),
                                  layout.policyIndexKey(), layout.policyAuditKey()})
        keys[key] = m_core.bytes({"DUMP", key});
    return keys;
}

QByteArray PolicyHistoryTest::newestAudit(const char* field)
{
    const auto reply =
        m_core.inspect({"XREVRANGE", m_core.layout().policyAuditKey(), "+", "-", "COUNT", "1"});
    if (!reply || reply->elements.empty())
        return {};
    for (const auto& [name, value] : reply->elements[0].elements[1].toPairs()) {
        if (name == field)
            return value;
    }
    return {};
}

void PolicyHistoryTest::saveKeepsThePreviousRevision()
{
    QCOMPARE(saveRevisions("like", 3), qint64(3));
    const auto h = history("like");
    QVERIFY2(h, h ? "" : qPrintable(h.error().toString()));
    QVERIFY(!h->deleted());
    QCOMPARE(h->current->revision, qint64(3));
    QCOMPARE(h->earlier.size(), size_t(2));
    QCOMPARE(h->earlier[0].revision, qint64(2)); // newest first
    QCOMPARE(h->earlier[1].revision, qint64(1));
    QCOMPARE(h->earlier[0].updatedBy, QStringLiteral("ops"));
    QVERIFY(h->earlier[0].updatedMs > 0);
    QVERIFY(!h->earlier[0].reason.isEmpty()); // the save's summary
    QCOMPARE(h->policyAt(1)->windows.front().limit, qint64(1));
    const auto changes = diffRevisions(*h, 1, 3);
    QVERIFY(changes);
    QCOMPARE(changes->size(), size_t(1));
    QCOMPARE(changes->front().name, QByteArray("windows"));
    QCOMPARE(changes->front().before, QStringLiteral("1m:1"));
    QCOMPARE(changes->front().after, QStringLiteral("1m:3"));
    // Like the policy it belongs to, the history has no TTL.
    QCOMPARE(m_core.pttl(m_core.layout().policyHistoryKey("like")), qint64(-1));
}

void PolicyHistoryTest::historyIsBoundedAndPrunedRevisionsAreNamed()
{
    QCOMPARE(saveRevisions("search", 105), qint64(105));
    const auto h = history("search");
    QVERIFY(h);
    QCOMPARE(h->earlier.size(), size_t(100));
    QCOMPARE(h->earlier.back().revision, qint64(5));
    QCOMPARE(m_core.integer({"XLEN", m_core.layout().policyHistoryKey("search")}), qint64(100));

    const auto before = snapshot("search");
    const auto pruned = rollback("search", 105, 3);
    QVERIFY(!pruned);
    QCOMPARE(pruned.error().kind, ErrorKind::NotFound);
    QVERIFY2(pruned.error().message.contains(QStringLiteral("pruned")),
             qPrintable(pruned.error().message));
    QCOMPARE(h->missing(3).kind, ErrorKind::NotFound);
    QVERIFY(h->missing(3).message.contains(QStringLiteral("pruned")));
    QCOMPARE(snapshot("search"), before);
    QCOMPARE(*rollback("search", 105, 5), qint64(106));
}

void PolicyHistoryTest::rollbackIsANewAuditedRevision()
{
    QCOMPARE(saveRevisions("like", 3), qint64(3));
    const auto rolled = rollback("like", 3, 1);
    QVERIFY2(rolled, rolled ? "" : qPrintable(rolled.error().toString()));
    QCOMPARE(*rolled, qint64(4));
    const auto h = history("like");
    QCOMPARE(h->current->revision, qint64(4));
    QCOMPARE(h->current->updatedBy, QStringLiteral("alice"));
    QCOMPARE(h->current->reason, QStringLiteral("bad deploy"));
    QCOMPARE(h->policyAt(4)->windows.front().limit, qint64(1));
    QVERIFY(diffRevisions(*h, 1, 4)->empty());
    QCOMPARE(h->earlier.size(), size_t(3)); // 3, 2, 1: never rewritten
    QCOMPARE(h->earlier[0].revision, qint64(3));

    QCOMPARE(newestAudit("event"), QByteArray("rollback"));
    QCOMPARE(newestAudit("actor"), QByteArray("alice"));
    QCOMPARE(newestAudit("reason"), QByteArray("bad deploy"));
    QCOMPARE(newestAudit("detail"), QByteArray("revision=4; from=1; windows: 60000:3 -> 60000:1"));
}

void PolicyHistoryTest::rollbackConflictsWriteNothing()
{
    QCOMPARE(saveRevisions("like", 3), qint64(3));
    const auto before = snapshot("like");
    const auto stale = rollback("like", 2, 1); // someone saved 3 meanwhile
    QVERIFY(!stale);
    QCOMPARE(stale.error().kind, ErrorKind::Conflict);
    QCOMPARE(snapshot("like"), before);
    // A restore while a policy is stored is a conflict too.
    QCOMPARE(restore("like").error().kind, ErrorKind::Conflict);
    QCOMPARE(snapshot("like"), before);
}

void PolicyHistoryTest::badRollbacksAreRefused()
{
    QCOMPARE(saveRevisions("like", 2), qint64(2));
    const auto before = snapshot("like");
    QCOMPARE(rollback("like", 2, 9).error().kind, ErrorKind::NotFound);     // no such revision
    QCOMPARE(rollback("like", 2, 2).error().kind, ErrorKind::InvalidInput); // already there
    QCOMPARE(rollback("like", 2, 0).error().kind, ErrorKind::InvalidInput);
    QCOMPARE(rollback("ghost", 1, 1).error().kind, ErrorKind::Conflict); // not stored
    QCOMPARE(restore("ghost").error().kind, ErrorKind::NotFound);        // no history at all
    QCOMPARE(history("ghost").error().kind, ErrorKind::NotFound);
    const auto noReason = await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_core.policies().rollback("like", 2, 1, QStringLiteral("alice"), QStringLiteral(" "),
                                   context, std::move(done));
    });
    QCOMPARE(noReason.error().kind, ErrorKind::InvalidInput);
    QCOMPARE(snapshot("like"), before);
}

void PolicyHistoryTest::deletedPolicyIsRestored()
{
    QCOMPARE(saveRevisions("upload", 2), qint64(2));
    QVERIFY(await<Unit>([&](QObject* context, Callback<Unit> done) {
        m_core.policies().remove("upload", 2, QStringLiteral("ops"), context, std::move(done));
    }));
    auto h = history("upload");
    QVERIFY(h);
    QVERIFY(h->deleted());
    QCOMPARE(h->earlier.front().revision, qint64(2));

    const auto restored = restore("upload");
    QVERIFY2(restored, restored ? "" : qPrintable(restored.error().toString()));
    QCOMPARE(*restored, qint64(3)); // revisions go on counting across the delete
    const auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("upload", context, std::move(done));
    });
    QVERIFY(policy);
    QCOMPARE(policy->windows.front().limit, qint64(2));
    QCOMPARE(policy->revision, qint64(3));
    QCOMPARE(newestAudit("event"), QByteArray("restore"));
    QCOMPARE(newestAudit("reason"), QByteArray("deleted by mistake"));
    QCOMPARE(newestAudit("detail"), QByteArray("revision=3; from=2"));
    QVERIFY(m_core.integer({"SISMEMBER", m_core.layout().policyIndexKey(), "upload"}) == 1);

    // Deleted again and created anew: the new policy's revision follows the history's.
    QVERIFY(await<Unit>([&](QObject* context, Callback<Unit> done) {
        m_core.policies().remove("upload", 3, QStringLiteral("ops"), context, std::move(done));
    }));
    QCOMPARE(*m_core.save(makePolicy("upload", 9, 1000)), qint64(4));
}

void PolicyHistoryTest::oddActionIds_data()
{
    QTest::addColumn<QByteArray>("action");
    QTest::newRow("colon and braces") << QByteArray("a:{b}:history");
    QTest::newRow("percent and glob") << QByteArray("%41*?[x]");
    QTest::newRow("whitespace") << QByteArray("two words\n\t");
    QTest::newRow("nul and high bytes") << QByteArray("\x00\xff\xfe", 3);
    QTest::newRow("utf-8") << QByteArray("Überweisung €");
    QTest::newRow("longest") << QByteArray(KeySchema::kMaxIdBytes, 'x');
}

void PolicyHistoryTest::oddActionIds()
{
    QFETCH(QByteArray, action);
    QCOMPARE(saveRevisions(action, 2), qint64(2));
    QCOMPARE(*rollback(action, 2, 1), qint64(3));
    QVERIFY(await<Unit>([&](QObject* context, Callback<Unit> done) {
        m_core.policies().remove(action, 3, QStringLiteral("ops"), context, std::move(done));
    }));
    QCOMPARE(*restore(action), qint64(4));
    const auto h = history(action);
    QVERIFY(h);
    QCOMPARE(h->action, action);
    QCOMPARE(h->current->revision, qint64(4));
    QCOMPARE(h->earlier.size(), size_t(3));
    QCOMPARE(h->policyAt(4)->windows.front().limit, qint64(1));
    QCOMPARE(newestAudit("action"), action); // the raw id, unescaped
}

void PolicyHistoryTest::unknownFieldsRoundTrip()
{
    // A field this version does not know (a newer client's) is kept in the history and comes
    // back with a rollback: the history stores whatever fields a policy has.
    const KeyLayout layout = m_core.layout();
    const Command keys{layout.policyKey("like"), layout.policyAuditKey(), layout.policyIndexKey(),
                       layout.policyHistoryKey("like")};
    const auto set = [&](const QByteArray& revision, const Command& fields) {
        return await<Reply>([&](QObject*, Callback<Reply> done) {
            runScript(m_core.client(), QStringLiteral("policy_set"), keys,
                      Command{revision, "ops", "", "why"} + fields, nullptr, std::move(done));
        });
    };
    QVERIFY(set("0", {"windows", "60000:5", "shadow", "1"}));
    QVERIFY(set("1", {"windows", "60000:7"}));
    QCOMPARE(*rollback("like", 2, 1), qint64(3));
    QCOMPARE(m_core.bytes({"HGET", layout.policyKey("like"), "shadow"}), QByteArray("1"));
    QCOMPARE(m_core.bytes({"HGET", layout.policyKey("like"), "windows"}), QByteArray("60000:5"));
    QCOMPARE(newestAudit("detail"), QByteArray("revision=3; from=1; windows: 60000:7 -> 60000:5; "
                                               "shadow: (none) -> 1"));
    // The owned fields stay the scripts': a client may not give them.
    const auto owned = set("3", {"updated_reason", "mine"});
    QCOMPARE(owned.error().kind, ErrorKind::InvalidInput);
}

void PolicyHistoryTest::shadowRoundTrips()
{
    // Tried in shadow, then enforced, then rolled back to the shadow revision.
    Policy policy = makePolicy("like", 5, 10000);
    policy.shadow = true;
    QCOMPARE(*m_core.save(policy), qint64(1));
    policy.shadow = false;
    policy.revision = 1;
    QCOMPARE(*m_core.save(policy), qint64(2));
    const auto changes = diffRevisions(*history("like"), 1, 2);
    QVERIFY(changes);
    QCOMPARE(changes->size(), size_t(1));
    QCOMPARE(changes->front().name, QByteArray("shadow"));
    QCOMPARE(*rollback("like", 2, 1), qint64(3));
    const auto stored = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("like", context, std::move(done));
    });
    QVERIFY(stored);
    QVERIFY(stored->shadow);
}

void PolicyHistoryTest::aclRefusalWritesNothing()
{
    // An operator whose rules leave out the history key: every policy write is refused whole.
    QCOMPARE(saveRevisions("like", 2), qint64(2));
    const KeyLayout layout = m_core.layout();
    // The scripts run on any key (a selector), their writes are checked against the root rules.
    Command setuser{"ACL", "SETUSER", "nohistory", "reset", "on",
                    ">pw", "+@all",   "-evalsha",  "%R~*"};
    setuser << "%W~" + layout.policyKey("like") << "%W~" + layout.policyIndexKey()
            << "%W~" + layout.policyAuditKey() << "(+evalsha ~*)";
    for (const auto& reply : m_core.onEveryPrimary(setuser))
        QVERIFY2(reply, reply ? "" : qPrintable(reply.error().toString()));
    ConnectionOptions options = m_core.options();
    options.user = QStringLiteral("nohistory");
    options.password = QStringLiteral("pw");
    const auto client = m_core.connect(options);
    QVERIFY(client);
    const PolicyStore store(client.get(), m_core.schema());

    const auto before = snapshot("like");
    const auto rolled = rollback("like", 2, 1, &store);
    QCOMPARE(rolled.error().kind, ErrorKind::NoPerm);
    QVERIFY2(rolled.error().message.contains(QStringLiteral("nothing was written")),
             qPrintable(rolled.error().message));
    Policy policy = makePolicy("like", 50, 60000);
    policy.revision = 2;
    const auto saved = await<qint64>([&](QObject* context, Callback<qint64> done) {
        store.save(policy, QStringLiteral("eve"), context, std::move(done));
    });
    QCOMPARE(saved.error().kind, ErrorKind::NoPerm);
    QVERIFY(saved.error().message.contains(QStringLiteral("nothing was written")));
    QCOMPARE(snapshot("like"), before);
    m_core.onEveryPrimary({"ACL", "DELUSER", "nohistory"});
}

void PolicyHistoryTest::historyOfTheWrongTypeIsNamed()
{
    QCOMPARE(saveRevisions("like", 1), qint64(1));
    const QByteArray key = m_core.layout().policyHistoryKey("like");
    QVERIFY(m_core.inspect({"SET", key, "not a stream"}));
    const auto before = snapshot("like");
    Policy policy = makePolicy("like", 5, 60000);
    policy.revision = 1;
    const auto saved = m_core.save(policy);
    QCOMPARE(saved.error().kind, ErrorKind::WrongType);
    QVERIFY2(saved.error().message.contains(QString::fromUtf8(key)),
             qPrintable(saved.error().message));
    QCOMPARE(history("like").error().kind, ErrorKind::WrongType);
    QCOMPARE(snapshot("like"), before);
}

QTEST_GUILESS_MAIN(PolicyHistoryTest)
#include "tst_PolicyHistory.moc"
