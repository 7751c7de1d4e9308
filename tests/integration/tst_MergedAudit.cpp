// The Audit page's global view on a Redis Cluster (core/audit/MergedAudit): every user's audit
// stream read with SCAN <p>:{*}:audit and merged newest first by stream id. The merge itself
// needs no cluster, so it is checked on a single server, with streams written by the scripts.

#include "core/audit/MergedAudit.h"
#include "tests/support/CoreFixture.h"

using namespace tollgate;
using namespace tollgate::test;

class MergedAuditTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { QVERIFY(m_core.flush()); }
    void mergesEveryUsersStreamNewestFirst();
    void keepsTheNewestCountAndFollowsAfterAnId();
    void emptyKeyspaceGivesNothing();

private:
    Result<std::vector<AuditEntry>> merged(int count, const QByteArray& afterId = {})
    {
        return await<std::vector<AuditEntry>>([&](QObject* context, auto done) {
            latestMergedAudit(m_core.client(), m_core.schema(), count, afterId, context,
                              std::move(done));
        });
    }
    // An entry at a chosen id (ms-seq), so the expected order does not depend on timing.
    void entry(const QByteArray& user, const QByteArray& id)
    {
        QVERIFY(m_core.inspect({"XADD", m_core.schema().userAuditKey(user), id, "event", "ban",
                                "user", user}));
    }
    QList<QByteArray> users(const std::vector<AuditEntry>& entries)
    {
        QList<QByteArray> out;
        for (const AuditEntry& entry : entries)
            out << entry.user;
        return out;
    }

    CoreFixture m_core;
};

void MergedAuditTest::mergesEveryUsersStreamNewestFirst()
{
    // Interleaved over three streams, so only a merge by id gives this order; 2000-1 after
    // 2000-0 (same ms, next sequence).
    entry("ann", "1000-0");
    entry("bob", "2000-0");
    entry("cy", "1500-0");
    entry("ann", "2000-1");
    entry("cy", "3000-0");
    QVERIFY(m_core.inspect({"SET", "tg:{x}:audit", "not a stream"})); // not listed by TYPE
    auto entries = merged(100);
    QVERIFY2(entries, qPrintable(entries ? QString() : entries.error().toString()));
    QCOMPARE(users(*entries), (QList<QByteArray>{"cy", "ann", "bob", "cy", "ann"}));
    for (size_t i = 1; i < entries->size(); ++i)
        QVERIFY((*entries)[i - 1].timeMs >= (*entries)[i].timeMs);
}

void MergedAuditTest::keepsTheNewestCountAndFollowsAfterAnId()
{
    entry("ann", "1000-0");
    entry("bob", "2000-0");
    entry("cy", "3000-0");
    entry("ann", "4000-0");
    auto newest = merged(2);
    QVERIFY(newest);
    QCOMPARE(users(*newest), (QList<QByteArray>{"ann", "cy"}));
    entry("dee", "5000-0");
    entry("bob", "6000-0");
    auto after = merged(100, newest->front().id); // a live view's newest: 4000-0
    QVERIFY(after);
    QCOMPARE(users(*after), (QList<QByteArray>{"bob", "dee"}));
}

void MergedAuditTest::emptyKeyspaceGivesNothing()
{
    auto entries = merged(10);
    QVERIFY(entries);
    QVERIFY(entries->empty());
}

QTEST_MAIN(MergedAuditTest)
#include "tst_MergedAudit.moc"
