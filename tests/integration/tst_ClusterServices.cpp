// The real C++ services on a real Redis Cluster (three primaries), through one plain Client
// given the seed: every write touches one slot (docs/cluster.md "Audit on a cluster": the
// global mirror is the call's own stream, the policies live under "{:}") and lands with its
// audit entry, for users spread over all three primaries.

#include "core/audit/MergedAudit.h"
#include "core/keys/KeyDeletion.h"
#include "core/keys/KeyLayout.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisCluster.h"
#include "tollgate/AuditLog.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "tollgate/PolicyStore.h"
#include "tollgate/Repair.h"
#include "tollgate/Subjects.h"

#include <QtTest>
#include <map>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::RedisCluster;

class ClusterServicesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void policiesShareOneSlotWithTheirAudit();
    void hitBanUnbanResetOnEveryPrimary();
    void repairOnEveryPrimary();
    void deleteOnEveryPrimary();
    void policyDeleteIsAudited();
    void mergedViewSpansEveryPrimary();
    void subjectsKeepTheirReadsInFlight();
    void subjectsTakeBansFromTheScan();

private:
    Result<Reply> run(const Command& command);
    qint64 integer(const Command& command);     // -3 on error
    QStringList events(const QByteArray& user); // AuditLog, newest first; "" = global view
    bool writeAll(const std::vector<Command>& writes); // routed, each reply checked
    // One Subjects::stream() pass; `each` runs on the client's worker thread.
    Result<SubjectsProgress> stream(const SubjectsOptions& options,
                                    const std::function<void(const Subject&)>& each);

    RedisCluster m_cluster;
    std::unique_ptr<Client> m_client;
    const KeySchema m_schema;
    const KeyLayout m_layout{m_schema, true};
    QList<QByteArray> m_users; // one per primary
    Policy m_policy = tollgate::test::makePolicy("like", 2, 60'000);
};

void ClusterServicesTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 0));
    m_client = std::make_unique<Client>(*ConnectionOptions::fromUrl(m_cluster.seedUrl()));
    m_client->open();
    QTRY_VERIFY(m_client->isModeKnown() && m_client->state() == ConnectionState::Connected);
    QVERIFY(m_client->isCluster());
    for (int i = 0; m_users.size() < m_cluster.size() && i < 1000; ++i) {
        const QByteArray user = "user:" + QByteArray::number(i);
        const int node = m_cluster.nodeOfKey(m_schema.userAuditKey(user));
        if (node >= 0 && node == m_users.size())
            m_users << user;
    }
    QCOMPARE(m_users.size(), m_cluster.size());
    m_policy.banMs = 3'600'000;
}

void ClusterServicesTest::cleanupTestCase()
{
    m_client.reset();
}

Result<Reply> ClusterServicesTest::run(const Command& command)
{
    return await<Reply>([&](QObject* context, Callback<Reply> done) {
        m_client->execute(command, context, std::move(done));
    });
}

qint64 ClusterServicesTest::integer(const Command& command)
{
    const Result<Reply> reply = run(command);
    return reply ? reply->toInteger().value_or(-3) : -3;
}

QStringList ClusterServicesTest::events(const QByteArray& user)
{
    const AuditLog log(m_client.get(), m_schema);
    auto entries = await<std::vector<AuditEntry>>(
        [&](QObject* context, auto done) { log.latest(user, 100, context, std::move(done)); });
    QStringList out;
    if (entries)
        for (const AuditEntry& entry : *entries)
            out << entry.event;
    return out;
}

bool ClusterServicesTest::writeAll(const std::vector<Command>& writes)
{
    auto written = await<std::vector<Result<Reply>>>([&](QObject* context, auto done) {
        m_client->executeBatch(writes, context, [done](std::vector<Result<Reply>> replies) {
            done(std::move(replies));
        });
    });
    return written && std::all_of(written->begin(), written->end(),
                                  [](const Result<Reply>& reply) { return bool(reply); });
}

Result<SubjectsProgress> ClusterServicesTest::stream(const SubjectsOptions& options,
                                                     const std::function<void(const Subject&)>& each)
{
    const Subjects subjects(m_client.get(), m_schema);
    return await<SubjectsProgress>(
        [&](QObject*, Callback<SubjectsProgress> done) {
            subjects.stream(
                options,
                [&](std::vector<Subject>& batch, const SubjectsProgress&) {
                    for (const Subject& s : batch)
                        each(s);
                    return true;
                },
                done);
        },
        60'000);
}

void ClusterServicesTest::policiesShareOneSlotWithTheirAudit()
{
    const PolicyStore store(m_client.get(), m_schema);
    auto saved = await<qint64>([&](QObject* context, auto done) {
        store.save(m_policy, QStringLiteral("ops"), context, std::move(done));
    });
    QVERIFY2(saved, qPrintable(saved ? QString() : saved.error().toString()));
    QCOMPARE(*saved, qint64(1));
    m_policy.revision = *saved;
    QCOMPARE(integer({"EXISTS", m_layout.policyKey("like")}), qint64(1));
    QCOMPARE(integer({"EXISTS", m_schema.policyKey("like")}), qint64(0));
    QCOMPARE(integer({"SISMEMBER", m_layout.policyIndexKey(), "like"}), qint64(1));
    // The change and its entry in one script: the {:} stream, which the global view reads.
    QCOMPARE(events({}).value(0), QStringLiteral("policy"));

    auto listed = await<std::vector<Policy>>(
        [&](QObject* context, auto done) { store.list(context, std::move(done)); });
    QVERIFY(listed);
    QCOMPARE(listed->size(), size_t(1));
    QCOMPARE(listed->front().action, QByteArray("like"));
    auto read = await<Policy>(
        [&](QObject* context, auto done) { store.get("like", context, std::move(done)); });
    QVERIFY(read);
    QCOMPARE(read->revision, qint64(1));
    // With the index gone, the policies are found again by SCAN under {:} and reindexed.
    QVERIFY(run({"DEL", m_layout.policyIndexKey()}));
    auto reindexed = await<qint64>(
        [&](QObject* context, auto done) { store.reindex(context, std::move(done)); });
    QVERIFY2(reindexed, qPrintable(reindexed ? QString() : reindexed.error().toString()));
    QCOMPARE(*reindexed, qint64(1));
}

void ClusterServicesTest::hitBanUnbanResetOnEveryPrimary()
{
    const Limiter limiter(m_client.get(), m_schema);
    const Moderation moderation(m_client.get(), m_schema);
    for (const QByteArray& user : m_users) {
        for (int i = 0; i < 3; ++i) {
            auto hit = await<HitResult>([&](QObject* context, auto done) {
                limiter.hit(m_policy, user, 0, context, std::move(done));
            });
            QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
            QCOMPARE(hit->allowed, i < 2);
        }
        QCOMPARE(integer({"EXISTS", m_schema.actionBanKey(user, "like")}), qint64(1));

        BanRequest request;
        request.user = user;
        request.actor = QStringLiteral("ops");
        request.reason = QStringLiteral("spam wave");
        request.durationMs = 60'000;
        auto ban = await<BanInfo>([&](QObject* context, auto done) {
            moderation.ban(request, context, std::move(done));
        });
        QVERIFY2(ban, qPrintable(ban ? QString() : ban.error().toString()));
        auto unbanned = await<qint64>([&](QObject* context, auto done) {
            moderation.unban(user, {}, QStringLiteral("ops"), QStringLiteral("appeal"), context,
                             std::move(done));
        });
        QVERIFY2(unbanned, qPrintable(unbanned ? QString() : unbanned.error().toString()));
        QCOMPARE(*unbanned, qint64(2)); // the user-wide ban and the automatic one
        auto reset = await<qint64>([&](QObject* context, auto done) {
            moderation.reset(user, "like", QStringLiteral("ops"), QStringLiteral("fresh start"),
                             context, std::move(done));
        });
        QVERIFY2(reset, qPrintable(reset ? QString() : reset.error().toString()));
        QCOMPARE(*reset, qint64(1));
        QCOMPARE(events(user), (QStringList{QStringLiteral("reset"), QStringLiteral("unban"),
                                            QStringLiteral("ban"), QStringLiteral("auto_ban")}));
    }
    // No write went to the standalone global stream, which lives in another slot.
    QCOMPARE(integer({"EXISTS", m_schema.auditKey()}), qint64(0));
}

void ClusterServicesTest::repairOnEveryPrimary()
{
    for (const QByteArray& user : m_users)
        QVERIFY(run({"SET", m_schema.stateKey(user, "like", Algorithm::FixedWindow, 60'000), "5"}));
    const Repair repair(m_client.get(), m_schema);
    RepairOptions options;
    options.fix = true;
    options.actor = QStringLiteral("ops");
    options.reason = QStringLiteral("lost TTLs");
    auto report = await<RepairReport>(
        [&](QObject* context, auto done) { repair.run(options, {}, context, std::move(done)); });
    QVERIFY2(report, qPrintable(report ? QString() : report.error().toString()));
    QCOMPARE(report->totals.fixed, qint64(m_users.size())); // the {:} keys are not candidates
    for (const QByteArray& user : m_users) {
        QVERIFY(integer({"PTTL", m_schema.stateKey(user, "like", Algorithm::FixedWindow, 60'000)}) >
                0);
        QCOMPARE(events(user).value(0), QStringLiteral("repair"));
    }
}

void ClusterServicesTest::deleteOnEveryPrimary()
{
    const KeyDeletion deletion(m_client.get(), m_schema);
    QList<QByteArray> keys;
    for (const QByteArray& user : m_users) {
        const QByteArray note = m_schema.userBanKey(user).chopped(3) + "note";
        QVERIFY(run({"SET", note, "x"}));
        keys << note;
    }
    QVERIFY(run({"HSET", m_schema.statsKey("like"), "0:t", "1"}));
    keys << m_schema.statsKey("like");
    auto outcome = await<KeyDeletion::Outcome>([&](QObject* context, auto done) {
        deletion.remove(keys, QStringLiteral("ops"), QStringLiteral("cleanup"), context,
                        std::move(done));
    });
    QVERIFY(outcome);
    QCOMPARE(outcome->deleted.size(), m_users.size());
    // A key with no audit stream in its slot is refused, clearly, and kept.
    QCOMPARE(outcome->failed.size(), 1);
    QCOMPARE(outcome->failed.front().second.kind, ErrorKind::InvalidInput);
    QCOMPARE(integer({"EXISTS", m_schema.statsKey("like")}), qint64(1));
    for (const QByteArray& user : m_users)
        QCOMPARE(events(user).value(0), QStringLiteral("delete_key"));
}

void ClusterServicesTest::policyDeleteIsAudited()
{
    const PolicyStore store(m_client.get(), m_schema);
    auto removed = await<Unit>([&](QObject* context, auto done) {
        store.remove("like", m_policy.revision, QStringLiteral("ops"), context, std::move(done));
    });
    QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    QCOMPARE(integer({"EXISTS", m_layout.policyKey("like")}), qint64(0));
    QCOMPARE(integer({"SISMEMBER", m_layout.policyIndexKey(), "like"}), qint64(0));
    QCOMPARE(events({}).value(0), QStringLiteral("policy_delete"));
}

void ClusterServicesTest::mergedViewSpansEveryPrimary()
{
    auto entries = await<std::vector<AuditEntry>>([&](QObject* context, auto done) {
        latestMergedAudit(m_client.get(), m_schema, 500, {}, context, std::move(done));
    });
    QVERIFY2(entries, qPrintable(entries ? QString() : entries.error().toString()));
    QSet<QByteArray> users;
    QStringList events;
    for (const AuditEntry& entry : *entries) {
        users << entry.user;
        events << entry.event;
    }
    for (const QByteArray& user : m_users) // written on three nodes, read back in one view
        QVERIFY2(users.contains(user), user.constData());
    QVERIFY(events.contains(QStringLiteral("policy_delete"))); // from the {:} stream
    QVERIFY(events.contains(QStringLiteral("auto_ban")));
    for (size_t i = 1; i < entries->size(); ++i)
        QVERIFY((*entries)[i - 1].timeMs >= (*entries)[i].timeMs);
}

void ClusterServicesTest::subjectsKeepTheirReadsInFlight()
{
    // Many small SCAN batches from three primaries at once: the stream still keeps at most
    // readsInFlight read pipelines out, as on one server, and lists every subject once.
    std::vector<Command> writes;
    for (int i = 0; i < 600; ++i)
        writes.push_back({"SET",
                          m_schema.stateKey("many-" + QByteArray::number(i), "like",
                                            Algorithm::FixedWindow, 60'000),
                          "1", "PX", "600000"});
    QVERIFY(writeAll(writes));

    for (const int bound : {1, 3}) {
        SubjectsOptions options;
        options.userPrefix = "many-";
        options.scanCount = 10;
        options.readsInFlight = bound;
        std::map<QByteArray, int> seen; // worker thread; the test thread waits in await()
        auto progress = stream(options, [&](const Subject& s) { ++seen[s.user]; });
        QVERIFY2(progress, qPrintable(progress ? QString() : progress.error().toString()));
        QCOMPARE(progress->subjects, qint64(600));
        QCOMPARE(seen.size(), size_t(600));
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](const auto& s) { return s.second == 1; }));
        QVERIFY2(progress->readsPeak >= 1 && progress->readsPeak <= bound,
                 qPrintable(QStringLiteral("%1 reads out at once").arg(progress->readsPeak)));
    }
}

void ClusterServicesTest::subjectsTakeBansFromTheScan()
{
    // mayRepeat: the bans come from the scan of every primary, in whatever order it finds
    // them; a subject read before its ban key must come again banned.
    std::vector<Command> writes;
    for (int i = 0; i < 600; ++i) {
        const QByteArray user = "late-" + QByteArray::number(i);
        writes.push_back({"SET", m_schema.stateKey(user, "like", Algorithm::FixedWindow, 60'000),
                          "1", "PX", "600000"});
        if (i % 7 == 0)
            writes.push_back({"HSET", m_schema.actionBanKey(user, "like"), "until_ms", "0",
                              "reason", "r", "actor", "a", "source", "manual"});
    }
    QVERIFY(writeAll(writes));
    SubjectsOptions repeating;
    repeating.userPrefix = "late-";
    repeating.scanCount = 10;
    repeating.mayRepeat = true;
    std::map<QByteArray, bool> lastBanned; // worker thread; the test thread waits in await()
    auto progress =
        stream(repeating, [&](const Subject& s) { lastBanned[s.user] = s.ban.has_value(); });
    QVERIFY(progress);
    QCOMPARE(progress->subjects, qint64(600));
    QCOMPARE(lastBanned.size(), size_t(600));
    for (const auto& [user, isBanned] : lastBanned)
        QVERIFY2(isBanned == (user.mid(5).toInt() % 7 == 0), user.constData());
}

QTEST_MAIN(ClusterServicesTest)
#include "tst_ClusterServices.moc"
