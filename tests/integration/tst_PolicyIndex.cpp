// The policy index (<p>:policies) kept by policy_set.lua / policy_delete.lua, its repair, and
// invalid stored policies reported as invalid: in core and through tollgatectl's exit codes.
#include "tests/support/CoreFixture.h"
#include "tollgate/PolicyStore.h"

#include <QProcess>

using namespace tollgate;
using namespace tollgate::test;

class tst_PolicyIndex : public QObject
{
    Q_OBJECT

private:
    QList<QByteArray> members()
    {
        auto reply = m_core.inspect({"SMEMBERS", m_core.layout().policyIndexKey()});
        QList<QByteArray> out;
        if (reply)
            for (const Reply& r : reply->elements)
                out << r.toBytes();
        std::sort(out.begin(), out.end());
        return out;
    }

    Result<PolicyListing> listAll()
    {
        return await<PolicyListing>(
            [&](QObject* c, Callback<PolicyListing> done) { m_core.policies().listAll(c, done); });
    }

    // tollgatectl with the fixture's server; returns the exit code, output in `out`.
    int ctl(const QStringList& args, QByteArray* out = nullptr)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TOLLGATE_URL"), m_core.server().url());
        process.setProcessEnvironment(env);
        process.start(
            QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tollgatectl"), args);
        if (!process.waitForFinished(30000))
            return -1;
        if (out)
            *out = process.readAllStandardOutput() + process.readAllStandardError();
        return process.exitCode();
    }

    CoreFixture m_core;

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { QVERIFY(m_core.flush()); }

    void scriptsKeepTheIndex()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        QVERIFY(m_core.save(makePolicy("a b:c", 5, 1000))); // stored escaped, like the key
        QCOMPARE(members(), (QList<QByteArray>{"*", "a%20b%3Ac", "like"}));
        auto listing = listAll();
        QVERIFY(listing);
        QCOMPARE(listing->policies.size(), size_t(2));
        QCOMPARE(listing->policies[0].action, QByteArray("a b:c"));

        auto like = await<Policy>(
            [&](QObject* c, Callback<Policy> done) { m_core.policies().get("like", c, done); });
        QVERIFY(like);
        QVERIFY(await<Unit>([&](QObject* c, Callback<Unit> done) {
            m_core.policies().remove("like", like->revision, QStringLiteral("test"), c, done);
        }));
        QCOMPARE(members(), (QList<QByteArray>{"*", "a%20b%3Ac"}));
    }

    void missingIndexIsRebuilt()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        QVERIFY(m_core.save(makePolicy("comment", 10, 60000)));
        QVERIFY(m_core.inspect({"DEL", m_core.layout().policyIndexKey()}));
        auto listing = listAll(); // falls back to SCAN, and rebuilds the index
        QVERIFY(listing);
        QCOMPARE(listing->policies.size(), size_t(2));
        QCOMPARE(members(), (QList<QByteArray>{"*", "comment", "like"}));

        // A policy hash deleted by hand leaves the index on the next reindex.
        QVERIFY(m_core.inspect({"DEL", m_core.layout().policyKey("comment")}));
        listing = listAll();
        QVERIFY(listing);
        QCOMPARE(listing->policies.size(), size_t(1));
        QByteArray out;
        QCOMPARE(ctl({QStringLiteral("policy"), QStringLiteral("reindex")}, &out), 0);
        QVERIFY2(out.contains("1 policies"), out.constData());
        QCOMPARE(members(), (QList<QByteArray>{"*", "like"}));

        // A wrong-typed index is an error naming the key, and writes nothing.
        QVERIFY(m_core.inspect({"DEL", m_core.layout().policyIndexKey()}));
        QVERIFY(m_core.inspect({"SET", m_core.layout().policyIndexKey(), "x"}));
        auto saved = m_core.save(makePolicy("view", 1, 1000));
        QVERIFY(!saved);
        QVERIFY2(saved.error().message.contains(QString::fromUtf8(m_core.layout().policyIndexKey())),
                 qPrintable(saved.error().message));
        QCOMPARE(m_core.integer({"EXISTS", m_core.layout().policyKey("view")}), 0);
    }

    void invalidStoredPolicyEverywhere()
    {
        QVERIFY(m_core.save(makePolicy("like", 10, 60000)));
        QVERIFY(m_core.save(makePolicy("comment", 10, 60000)));
        QVERIFY(m_core.inspect({"HSET", m_core.layout().policyKey("like"), "windows", "0:0"}));

        auto listing = listAll();
        QVERIFY(listing);
        QCOMPARE(listing->policies.size(), size_t(1));
        QCOMPARE(listing->invalid.size(), size_t(1));
        QCOMPARE(listing->invalid[0].action, QByteArray("like"));
        QVERIFY(listing->invalid[0].reason.contains(QString::fromUtf8(m_core.layout().policyKey("like"))));

        auto got = await<Policy>(
            [&](QObject* c, Callback<Policy> done) { m_core.policies().get("like", c, done); });
        QVERIFY(!got);
        QCOMPARE(got.error().kind, ErrorKind::WrongType);

        QByteArray out;
        QCOMPARE(ctl({QStringLiteral("policy"), QStringLiteral("list")}, &out), 3);
        QVERIFY2(out.contains("like: INVALID"), out.constData());
        QVERIFY2(out.contains("comment: fixed_window"), out.constData());
        QCOMPARE(
            ctl({QStringLiteral("policy"), QStringLiteral("get"), QStringLiteral("like")}, &out),
            3);
        QCOMPARE(ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("u1")}, &out),
                 3);
        QVERIFY2(out.contains("invalid"), out.constData());
        // The subjects listing still works and shows the row as invalid.
        QVERIFY(m_core.inspect(
            {"SET", m_core.schema().stateKey("u1", "like", Algorithm::FixedWindow, 60000), "1"}));
        QCOMPARE(ctl({QStringLiteral("subjects"), QStringLiteral("--json")}, &out), 0);
        QVERIFY2(out.contains(QByteArray("\"error\":\"policy " + m_core.layout().policyKey("like") + " is invalid")),
                 out.constData());
    }

    void subjectsCliFilters()
    {
        Policy like = makePolicy("like", 4, 60000);
        QVERIFY(m_core.save(like));
        for (int i = 0; i < 4; ++i)
            QVERIFY(m_core.hit(like, "near1"));
        QVERIFY(m_core.hit(like, "calm"));
        QVERIFY(m_core.hit(like, "calm2"));
        BanRequest request;
        request.user = "bad";
        request.action = "like";
        request.actor = QStringLiteral("test");
        request.reason = QStringLiteral("spam");
        request.durationMs = 60000;
        QVERIFY(await<BanInfo>([&](QObject* c, Callback<BanInfo> done) {
            m_core.moderation().ban(request, c, done);
        }));
        const QByteArray bad = m_core.schema().actionBanKey("calm2", "like");
        QVERIFY(m_core.inspect({"SET", bad, "not a hash"}));

        QByteArray out;
        QCOMPARE(
            ctl({QStringLiteral("subjects"), QStringLiteral("--banned"), QStringLiteral("--json")},
                &out),
            0);
        QCOMPARE(out.count('\n'), 1);
        QVERIFY2(out.contains("\"user\":\"bad\""), out.constData());
        QCOMPARE(
            ctl({QStringLiteral("subjects"), QStringLiteral("--near"), QStringLiteral("--json")},
                &out),
            0);
        QCOMPARE(out.count('\n'), 1);
        QVERIFY2(out.contains("\"user\":\"near1\"") && out.contains("\"count\":4"),
                 out.constData());
        QCOMPARE(ctl({QStringLiteral("subjects"), QStringLiteral("--user-prefix"),
                      QStringLiteral("calm"), QStringLiteral("--json")},
                     &out),
                 0);
        QCOMPARE(out.count('\n'), 2);
        QVERIFY2(out.contains(bad), out.constData()); // the bad key is named on its row
        QCOMPARE(ctl({QStringLiteral("subjects"), QStringLiteral("--max"), QStringLiteral("2"),
                      QStringLiteral("--json")},
                     &out),
                 0);
        QVERIFY2(out.contains("stopped at 2 subjects"), out.constData());
        QCOMPARE(
            ctl({QStringLiteral("subjects"), QStringLiteral("--max"), QStringLiteral("0")}, &out),
            2);
        // Plain text: a header and one line per subject, the bad one marked.
        QCOMPARE(ctl({QStringLiteral("subjects")}, &out), 0);
        QVERIFY2(out.contains("USER") && out.contains("error"), out.constData());
    }
};

QTEST_GUILESS_MAIN(tst_PolicyIndex)
#include "tst_PolicyIndex.moc"
