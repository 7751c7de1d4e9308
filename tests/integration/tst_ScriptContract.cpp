// The script contract (lua/README.md, "Contract version"): every script names the contract it
// follows and answers the contract query without writing; a call laid out for contract 1 and a
// policy written under another contract are refused by name, never misread.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Version.h"

using namespace tollgate;
using namespace tollgate::test;

class ScriptContractTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { TOLLGATE_REQUIRE(m_core, flush()); }

    void everyScriptNamesTheContract();
    void everyScriptAnswersTheQueryReadOnly();
    void contractOneHitLayoutIsRefusedByName();
    void contractTwoLayoutsAreRefusedByName();
    void policyOfContractTwoIsRead();
    void savedPolicyCarriesTheContract();
    void contractFieldBelongsToTheScript();
    void policyOfAnotherContractIsRefused();
    void policyWithoutContractIsRead();

private:
    QByteArray loaded(const QString& name);

    CoreFixture m_core;
};

QByteArray ScriptContractTest::loaded(const QString& name)
{
    const ScriptInfo* script = ScriptLibrary::instance().find(name);
    if (!script || !m_core.inspect({"SCRIPT", "LOAD", script->source}))
        return {};
    return script->sha1;
}

void ScriptContractTest::everyScriptNamesTheContract()
{
    const QList<ScriptInfo>& scripts = ScriptLibrary::instance().scripts();
    QVERIFY(scripts.size() >= 11);
    for (const ScriptInfo& script : scripts) {
        QVERIFY2(script.contract == kScriptContract,
                 qPrintable(QStringLiteral("%1.lua: Contract %2, expected %3")
                                .arg(script.name)
                                .arg(script.contract)
                                .arg(kScriptContract)));
        // The query's answer in the source is the same number.
        const QByteArray query = "ARGV[1] == 'contract' then return " +
                                 QByteArray::number(kScriptContract) + " end";
        QVERIFY2(script.source.contains(query),
                 qPrintable(script.name));
    }
}

void ScriptContractTest::everyScriptAnswersTheQueryReadOnly()
{
    for (const ScriptInfo& script : ScriptLibrary::instance().scripts()) {
        const QByteArray sha = loaded(script.name);
        QVERIFY(!sha.isEmpty());
        // EVALSHA_RO: a read-only ACL user may ask, and Redis would refuse any write.
        const auto answer = m_core.inspect({"EVALSHA_RO", sha, "0", "contract"});
        QVERIFY2(answer, qPrintable(script.name + QStringLiteral(": ") +
                                    (answer ? QString() : answer.error().toString())));
        QVERIFY2(answer->isInteger(), qPrintable(script.name));
        QCOMPARE(answer->integer, qint64(kScriptContract));
    }
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void ScriptContractTest::contractOneHitLayoutIsRefusedByName()
{
    const QByteArray sha = loaded(QStringLiteral("hit"));
    const KeySchema& s = m_core.schema();
    // Contract 1: user ban, action ban, user audit, then the state keys (no global audit key).
    for (int windows = 1; windows <= 2; ++windows) {
        Command keys{s.userBanKey("u"), s.actionBanKey("u", "like"), s.userAuditKey("u")};
        Command args{"hit", "fixed_window", "1", "0", "0", "0", "", "0", "u", "like", "",
                     "first_hit"};
        for (int w = 1; w <= windows; ++w) {
            keys << s.stateKey("u", "like", Algorithm::FixedWindow, w * 1000);
            args << "5" << QByteArray::number(w * 1000);
        }
        const auto reply = m_core.inspect(
            Command{"EVALSHA", sha, QByteArray::number(keys.size())} + keys + args);
        QVERIFY(!reply);
        QCOMPARE(reply.error().kind, ErrorKind::Contract);
        QVERIFY2(reply.error().message.contains(QStringLiteral("contract 1")) &&
                     reply.error().message.contains(QStringLiteral("contract 3")),
                 qPrintable(reply.error().message));
    }
    QCOMPARE(m_core.dbsize(), qint64(0));
}

// Contract 2: no overrides hash, in hit.lua's full and short forms and in refund.lua.
void ScriptContractTest::contractTwoLayoutsAreRefusedByName()
{
    const KeySchema& s = m_core.schema();
    const QByteArray state = s.stateKey("u", "like", Algorithm::FixedWindow, 1000);
    const Command full{s.userBanKey("u"), s.actionBanKey("u", "like"), s.userAuditKey("u"), "", state};
    const QList<std::tuple<QString, Command, Command>> calls{
        {QStringLiteral("hit"), full,
         {"hit", "fixed_window", "1", "0", "0", "0", "", "0", "u", "like", "", "first_hit", "5", "1000"}},
        {QStringLiteral("hit"), {s.userBanKey("u"), s.actionBanKey("u", "like"), state},
         {"hit", "fixed_window", "1", "5", "1000"}},
        {QStringLiteral("refund"), full,
         {"refund", "fixed_window", "1", "0", "0", "0", "", "0", "u", "like", "", "first_hit", "", "",
          "5", "1000"}}};
    for (const auto& [name, keys, args] : calls) {
        const auto reply = m_core.inspect(Command{"EVALSHA", loaded(name), QByteArray::number(keys.size())} +
                                          keys + args);
        QVERIFY(!reply);
        QCOMPARE(reply.error().kind, ErrorKind::Contract);
        QVERIFY2(reply.error().message.contains(QStringLiteral("contract 2")) &&
                     reply.error().message.contains(QStringLiteral("overrides")),
                 qPrintable(reply.error().message));
    }
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void ScriptContractTest::policyOfContractTwoIsRead()
{
    // Contract 3 changed the hit's keys, not the policy hash: a policy saved under 2 reads.
    const QByteArray key = m_core.layout().policyKey("like");
    QVERIFY(m_core.inspect({"HSET", key, "algorithm", "fixed_window", "windows", "10000:5",
                            "revision", "1", "contract", "2"}));
    const auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("like", context, done);
    });
    QVERIFY2(policy, qPrintable(policy ? QString() : policy.error().toString()));
    QCOMPARE(policy->windows.front().limit, qint64(5));
}

void ScriptContractTest::savedPolicyCarriesTheContract()
{
    QVERIFY(m_core.save(makePolicy("like", 5, 10'000)));
    QCOMPARE(m_core.bytes({"HGET", m_core.layout().policyKey("like"), "contract"}),
             QByteArray::number(kScriptContract));
    const auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("like", context, done);
    });
    QVERIFY2(policy, qPrintable(policy ? QString() : policy.error().toString()));
}

void ScriptContractTest::contractFieldBelongsToTheScript()
{
    const QByteArray sha = loaded(QStringLiteral("policy_set"));
    const KeyLayout layout = m_core.layout();
    const auto reply = m_core.inspect({"EVALSHA", sha, "3", layout.policyKey("like"), "", "", "0",
                                       "test", "", "", "windows", "1000:5", "contract", "1"});
    QVERIFY(!reply);
    QCOMPARE(reply.error().kind, ErrorKind::InvalidInput);
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void ScriptContractTest::policyOfAnotherContractIsRefused()
{
    const QByteArray key = m_core.layout().policyKey("like");
    QVERIFY(m_core.inspect({"HSET", key, "algorithm", "fixed_window", "windows", "10000:5",
                            "revision", "1", "contract", "4"}));
    const auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("like", context, done);
    });
    QVERIFY(!policy);
    QCOMPARE(policy.error().kind, ErrorKind::Contract);
    QVERIFY2(policy.error().message.contains(QStringLiteral("contract 4")),
             qPrintable(policy.error().message));

    // The CLI says so and exits 3, counting nothing.
    const CliRun run = runCli(tollgatectlPath(), m_core.server().url(),
                              {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("u")});
    QVERIFY2(run.code == 3 && run.err.contains("contract error") && run.err.contains("contract 4"),
             qPrintable(run.describe()));
    QCOMPARE(m_core.dbsize(), qint64(1));
}

void ScriptContractTest::policyWithoutContractIsRead()
{
    // Saved before contracts had numbers: the fields mean what they mean in contract 2.
    const QByteArray key = m_core.layout().policyKey("like");
    QVERIFY(m_core.inspect({"HSET", key, "algorithm", "fixed_window", "windows", "10000:5",
                            "revision", "1"}));
    const auto policy = await<Policy>([&](QObject* context, Callback<Policy> done) {
        m_core.policies().get("like", context, done);
    });
    QVERIFY2(policy, qPrintable(policy ? QString() : policy.error().toString()));
    QCOMPARE(policy->windows.front().limit, qint64(5));
}

QTEST_MAIN(ScriptContractTest)
#include "tst_ScriptContract.moc"
