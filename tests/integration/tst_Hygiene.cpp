// Nothing of ours grows without bound or outlives its purpose: audit streams expire, stale
// logs without TTL go away, repair covers every kind of key, and bad ids, prefixes or stored
// policies cannot alias or poison anything.

#include "tests/support/CoreFixture.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Repair.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

class HygieneTest : public QObject
{
    Q_OBJECT

private:
    CoreFixture m_core;

    static Policy policy(const QByteArray& action, Algorithm algorithm, qint64 limit, qint64 windowMs)
    {
        Policy p;
        p.action = action;
        p.algorithm = algorithm;
        p.windows = {{limit, windowMs}};
        return p;
    }

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { QVERIFY(m_core.flush()); }

    void auditStreamsExpire()
    {
        BanRequest ban;
        ban.user = "42";
        ban.actor = QStringLiteral("ops");
        ban.reason = QStringLiteral("spam");
        ban.durationMs = 60'000;
        auto banned = test::await<BanInfo>([&](Context context, Callback<BanInfo> done) {
            m_core.moderation().ban(ban, context, done);
        });
        QVERIFY(banned);
        const QByteArray audit = m_core.schema().userAuditKey("42");
        const qint64 ninetyDays = 90LL * 24 * 3600 * 1000;
        QVERIFY(m_core.pttl(audit) > ninetyDays - 60'000);
        // Auto-bans and warnings from hit.lua refresh it too.
        Policy view = policy("view", Algorithm::FixedWindow, 2, 60'000);
        view.warn = 1;
        view.banMs = 60'000;
        QVERIFY(m_core.hit(view, "7"));
        QVERIFY(m_core.hit(view, "7")); // crosses warn: audit entry
        QVERIFY(m_core.pttl(m_core.schema().userAuditKey("7")) > ninetyDays - 60'000);
    }

    void autoBansReachTheGlobalAuditStream()
    {
        Policy like = policy("like", Algorithm::FixedWindow, 2, 10'000);
        like.banMs = 3'600'000;
        for (int i = 0; i < 2; ++i)
            QVERIFY(m_core.hit(like, "farm\n1"));
        auto denied = m_core.hit(like, "farm\n1");
        QVERIFY(denied);
        QCOMPARE(denied->tier, Tier::Deny);
        QTRY_VERIFY([&] {
            auto entries = test::await<std::vector<AuditEntry>>(
                [&](Context context, Callback<std::vector<AuditEntry>> done) {
                    m_core.audit().latest({}, 10, context, done);
                });
            return entries && !entries->empty() && entries->front().event == QStringLiteral("auto_ban") &&
                   entries->front().user == QByteArray("farm\n1") &&
                   entries->front().action == QByteArray("like");
        }());
    }

    void staleLogWithoutTtlIsDropped()
    {
        const Policy api = policy("api", Algorithm::SlidingLog, 2, 1000);
        const QByteArray key = m_core.schema().stateKey("u", "api", Algorithm::SlidingLog, 1000);
        // Entries from long ago, no TTL: what an interrupted older client could leave.
        QCOMPARE(m_core.integer({"ZADD", key, "1000000", "1-1", "2000000", "2-1"}), qint64(2));
        QCOMPARE(m_core.pttl(key), qint64(-1));
        auto hit = m_core.hit(api, "u", 5); // cost > limit: denied, nothing added
        QVERIFY(hit);
        QVERIFY(!hit->allowed);
        QCOMPARE(m_core.integer({"EXISTS", key}), qint64(0));
    }

    void repairGivesAuditStreamsTheirTtl()
    {
        const QByteArray audit = m_core.schema().userAuditKey("old");
        QVERIFY(m_core.inspect({"XADD", audit, "*", "event", "ban"}));
        QCOMPARE(m_core.pttl(audit), qint64(-1));
        RepairOptions options;
        options.fix = true;
        options.reason = QStringLiteral("audit stream without TTL");
        auto report = test::await<RepairReport>([&](Context context, Callback<RepairReport> done) {
            Repair(m_core.client(), m_core.schema()).run(options, {}, context, done);
        });
        QVERIFY(report);
        QCOMPARE(report->totals.fixed, qint64(1));
        QVERIFY(m_core.pttl(audit) > 0);
    }

    void nonCanonicalEscapesAreForeign()
    {
        const KeySchema schema;
        QCOMPARE(schema.parse("tg:{%41}:x:fw:1000").kind, KeySchema::Parsed::Kind::Foreign);
        QCOMPARE(schema.parse("tg:{%4a}:x:fw:1000").kind, KeySchema::Parsed::Kind::Foreign);
        const auto parsed = schema.parse(schema.stateKey("A:b", "x", Algorithm::FixedWindow, 1000));
        QCOMPARE(parsed.kind, KeySchema::Parsed::Kind::State);
        QCOMPARE(parsed.user, QByteArray("A:b"));
    }

    void prefixesThatWouldAliasAreRefused_data()
    {
        QTest::addColumn<QByteArray>("prefix");
        QTest::addColumn<bool>("valid");
        QTest::newRow("default") << QByteArray("tg") << true;
        QTest::newRow("dotted") << QByteArray("app.rate-limits") << true;
        QTest::newRow("glob") << QByteArray("tg*") << false;
        QTest::newRow("hash tag") << QByteArray("t{g}") << false;
        QTest::newRow("colon") << QByteArray("a:b") << false;
        QTest::newRow("space") << QByteArray("t g") << false;
        QTest::newRow("percent") << QByteArray("t%g") << false;
        QTest::newRow("non-ascii") << QByteArray("t\xc3\xa9") << false;
        QTest::newRow("64 bytes") << QByteArray(64, 'p') << true;
        QTest::newRow("65 bytes") << QByteArray(65, 'p') << false;
        QTest::newRow("empty") << QByteArray() << false;
    }

    void prefixesThatWouldAliasAreRefused()
    {
        QFETCH(QByteArray, prefix);
        QFETCH(bool, valid);
        QCOMPARE(KeySchema::validatePrefix(prefix).ok(), valid);
    }

    void invalidStoredPoliciesAreSkipped()
    {
        QVERIFY(m_core.save(policy("good", Algorithm::FixedWindow, 10, 1000)));
        // Written by hand, bypassing validation: limit 0.
        QVERIFY(m_core.inspect({"HSET", m_core.schema().policyKey("bad"), "algorithm",
                                "fixed_window", "windows", "1000:0"}));
        auto list = test::await<std::vector<Policy>>(
            [&](Context context, Callback<std::vector<Policy>> done) {
                m_core.policies().list(context, done);
            });
        QVERIFY(list);
        QCOMPARE(int(list->size()), 1);
        QCOMPARE(list->front().action, QByteArray("good"));
    }

    void tokenBucketFasterThanAMicrosecondIsRefused()
    {
        Policy p = policy("tb", Algorithm::TokenBucket, 5000, 1);
        const Status valid = p.validate();
        QVERIFY(!valid);
        QCOMPARE(valid.error().kind, ErrorKind::InvalidInput);
        p.windows = {{1000, 1}};
        QVERIFY(p.validate());
    }
};

QTEST_GUILESS_MAIN(HygieneTest)
#include "tst_Hygiene.moc"
