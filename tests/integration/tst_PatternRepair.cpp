// PatternRepair on one redis-server (and, as PatternRepairOnCluster, on the three-primary
// cluster): another client's keys without a TTL found by a dry run that changes nothing, then
// given the TTL with their audit entry in the same script; keys with a TTL, Tollgate's own
// keys and keys outside the pattern left alone; bad options refused before anything is sent.
// Through a Twemproxy pool: integration.TwemproxyCli.
#include "core/audit/MergedAudit.h"
#include "core/keys/PatternRepair.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/AuditLog.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;

class PatternRepairTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void dryRunListsAndChangesNothing();
    void fixGivesTheTtlWithItsAuditEntry();
    void aKeyThatGotATtlMeanwhileKeepsIt();
    void badOptionsAreRefused_data();
    void badOptionsAreRefused();

private:
    Result<RepairReport> run(const PatternRepairOptions& options);
    PatternRepairOptions options(bool fix) const;
    qint64 withoutTtl(const QList<QByteArray>& keys);

    CoreFixture m_core;
    QList<QByteArray> m_lost; // likes:{u<n>}:count, no TTL
};

void PatternRepairTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void PatternRepairTest::init()
{
    QVERIFY(m_core.flush());
    m_lost.clear();
    // Hash-tagged as a cluster's clients write them: each in the slot of its user's stream.
    for (int i = 0; i < 30; ++i) {
        const QByteArray key = "likes:{u" + QByteArray::number(i) + "}:count";
        QCOMPARE(m_core.bytes({"SET", key, "7"}), QByteArray("OK"));
        m_lost << key;
    }
    QCOMPARE(m_core.bytes({"SET", "likes:{kept}:count", "1", "PX", "50000"}), QByteArray("OK"));
    QCOMPARE(m_core.bytes({"SET", "comments:{u1}:count", "1"}), QByteArray("OK"));
    QCOMPARE(m_core.bytes({"SET", m_core.schema().prefix() + ":{u1}:likes:fw:60000", "1"}),
             QByteArray("OK"));
}

Result<RepairReport> PatternRepairTest::run(const PatternRepairOptions& options)
{
    return await<RepairReport>([&](QObject* context, Callback<RepairReport> done) {
        PatternRepair(m_core.client(), m_core.schema()).run(options, {}, context, done);
    });
}

PatternRepairOptions PatternRepairTest::options(bool fix) const
{
    PatternRepairOptions options;
    options.pattern = "likes:*";
    options.ttlMs = 3'600'000;
    options.fix = fix;
    options.actor = QStringLiteral("ops");
    options.reason = QStringLiteral("counters left by the old client");
    options.scanCount = 7; // several batches
    return options;
}

qint64 PatternRepairTest::withoutTtl(const QList<QByteArray>& keys)
{
    qint64 count = 0;
    for (const QByteArray& key : keys)
        count += m_core.pttl(key) == -1;
    return count;
}

void PatternRepairTest::dryRunListsAndChangesNothing()
{
    auto report = run(options(false));
    QVERIFY2(report, qPrintable(report ? QString() : report.error().toString()));
    QCOMPARE(report->totals.found, qint64(m_lost.size()));
    QCOMPARE(report->totals.fixed, qint64(0));
    QCOMPARE(report->totals.scanned, qint64(m_lost.size() + 1));
    QStringList listed;
    for (const RepairItem& item : report->items) {
        QCOMPARE(item.status, QStringLiteral("would_fix"));
        QCOMPARE(item.ttlMs, qint64(3'600'000));
        listed << QString::fromUtf8(item.key);
    }
    listed.sort();
    QStringList expected;
    for (const QByteArray& key : m_lost)
        expected << QString::fromUtf8(key);
    expected.sort();
    QCOMPARE(listed, expected);
    QCOMPARE(withoutTtl(m_lost), qint64(m_lost.size()));
}

void PatternRepairTest::fixGivesTheTtlWithItsAuditEntry()
{
    auto report = run(options(true));
    QVERIFY2(report, qPrintable(report ? QString() : report.error().toString()));
    QCOMPARE(report->totals.fixed, qint64(m_lost.size()));
    QCOMPARE(withoutTtl(m_lost), qint64(0));
    for (const QByteArray& key : m_lost) {
        const qint64 ttl = m_core.pttl(key);
        QVERIFY2(ttl > 3'500'000 && ttl <= 3'600'000, key.constData());
    }
    // Left alone: outside the pattern, and Tollgate's own key (repair's, not this one's).
    QCOMPARE(m_core.pttl("comments:{u1}:count"), qint64(-1));
    QCOMPARE(m_core.pttl(m_core.schema().prefix() + ":{u1}:likes:fw:60000"), qint64(-1));
    QVERIFY(m_core.pttl("likes:{kept}:count") <= 50000);

    auto entries = await<std::vector<AuditEntry>>(
        [&](QObject* context, Callback<std::vector<AuditEntry>> done) {
            // One server: the global stream; a cluster: every stream, merged.
            if (m_core.onCluster())
                latestMergedAudit(m_core.client(), m_core.schema(), 100, {}, context, done);
            else
                m_core.audit().latest({}, 100, context, done);
        });
    QVERIFY(entries);
    qint64 named = 0;
    for (const AuditEntry& entry : *entries) {
        if (entry.event != QLatin1String("repair"))
            continue;
        QCOMPARE(entry.actor, QStringLiteral("ops"));
        QCOMPARE(entry.reason, QStringLiteral("counters left by the old client"));
        QVERIFY2(entry.detail.startsWith(QStringLiteral("pattern likes:*, ttl 3600000 ms: fixed=")),
                 qPrintable(entry.detail));
        for (const QByteArray& key : m_lost)
            named += entry.detail.contains(QString::fromUtf8(key) + QLatin1Char(',')) ||
                     entry.detail.endsWith(QString::fromUtf8(key));
    }
    QCOMPARE(named, qint64(m_lost.size()));

    // Again: nothing left to fix, nothing more written.
    report = run(options(true));
    QVERIFY(report);
    QCOMPARE(report->totals.fixed, qint64(0));
}

void PatternRepairTest::aKeyThatGotATtlMeanwhileKeepsIt()
{
    // What the fix does for a key SCAN saw without a TTL that got one before the script ran:
    // the check is in the same script as the fix.
    PatternRepairOptions fix = options(true);
    fix.pattern = "likes:{u3}:*";
    QCOMPARE(m_core.integer({"PEXPIRE", "likes:{u3}:count", "9000"}), qint64(1));
    auto report = run(fix);
    QVERIFY(report);
    QCOMPARE(report->totals.fixed, qint64(0));
    QVERIFY(m_core.pttl("likes:{u3}:count") <= 9000);
}

void PatternRepairTest::badOptionsAreRefused_data()
{
    QTest::addColumn<QByteArray>("pattern");
    QTest::addColumn<qint64>("ttlMs");
    QTest::addColumn<qint64>("rate");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("message");
    QTest::newRow("no pattern") << QByteArray() << qint64(1000) << qint64(0) << QStringLiteral("r")
                                << QStringLiteral("pattern is required");
    QTest::newRow("our prefix") << QByteArray("tg:*") << qint64(1000) << qint64(0)
                                << QStringLiteral("r") << QStringLiteral("Tollgate's own");
    QTest::newRow("no ttl") << QByteArray("likes:*") << qint64(0) << qint64(0) << QStringLiteral("r")
                            << QStringLiteral("between 1 ms and 10 years");
    QTest::newRow("negative rate") << QByteArray("likes:*") << qint64(1000) << qint64(-1)
                                   << QStringLiteral("r") << QStringLiteral("keys per second");
    QTest::newRow("no reason") << QByteArray("likes:*") << qint64(1000) << qint64(0) << QString()
                               << QStringLiteral("reason is required");
}

void PatternRepairTest::badOptionsAreRefused()
{
    QFETCH(QByteArray, pattern);
    QFETCH(qint64, ttlMs);
    QFETCH(qint64, rate);
    QFETCH(QString, reason);
    QFETCH(QString, message);
    PatternRepairOptions bad = options(true);
    bad.pattern = pattern;
    bad.ttlMs = ttlMs;
    bad.rate = rate;
    bad.reason = reason;
    auto report = run(bad);
    QVERIFY(!report);
    QCOMPARE(report.error().kind, ErrorKind::InvalidInput);
    QVERIFY2(report.error().message.contains(message), qPrintable(report.error().message));
    QCOMPARE(withoutTtl(m_lost), qint64(m_lost.size()));
}

QTEST_GUILESS_MAIN(PatternRepairTest)
#include "tst_PatternRepair.moc"
