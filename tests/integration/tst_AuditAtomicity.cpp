// No write without its audit entries: every write script checks the ACL user's permissions and
// the audit keys' types before writing anything, and writes the per-user and the global entry
// itself. Here with real ACL users on a real server: allowed writes land with both entries,
// refused ones leave the data exactly as it was.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Repair.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

namespace {

// The error of a failed result, for test messages; empty for a success.
template <typename T> QByteArray why(const Result<T>& result)
{
    return result ? QByteArray() : result.error().toString().toUtf8();
}

} // namespace

class AuditAtomicityTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void autoBanWritesBothEntriesOnce();
    void autoBanFromAnyClientReachesGlobalAudit();
    void emptyGlobalKeyMeansNoMirror_data();
    void emptyGlobalKeyMeansNoMirror();
    void refusedAutoBanWritesNothing_data();
    void refusedAutoBanWritesNothing();
    void stringAtGlobalAuditIsNamed();
    void counterNeverLeftWithoutItsTtl();
    void everyWriteHasBothEntries();
    void refusedWritesChangeNothing_data();
    void refusedWritesChangeNothing();

private:
    // An ACL user "<name>" with password "pw" and the given rules, connected.
    std::unique_ptr<Client> connectAs(const QByteArray& name, const QList<QByteArray>& rules);
    // A like policy: 2 per minute, then a one-hour ban.
    static Policy banningPolicy();
    // hit.lua called as another language would: EVALSHA with KEYS built by hand.
    Result<Reply> rawHit(const QByteArray& globalKey);
    // A ban, a counter that lost its TTL and a policy, written as the default user.
    void seed();
    // Every key with its DUMP and whether it has a TTL: equal snapshots = nothing was written.
    QMap<QByteArray, QByteArray> snapshot();
    // One write through the core services on `client`; `op` is repair, ban, unban, reset,
    // policy_set or policy_delete.
    Status write(Client* client, const QString& op);

    CoreFixture m_core;
};

void AuditAtomicityTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void AuditAtomicityTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
    QVERIFY(m_core.inspect({"ACL", "DELUSER", "limited"}));
}

std::unique_ptr<Client> AuditAtomicityTest::connectAs(const QByteArray& name,
                                                      const QList<QByteArray>& rules)
{
    Command setuser{"ACL", "SETUSER", name, "reset", "on", ">pw"};
    setuser << rules;
    const auto created = m_core.inspect(setuser);
    if (!created) {
        qWarning() << created.error().toString();
        return nullptr;
    }
    ConnectionOptions options = m_core.options();
    options.user = QString::fromUtf8(name);
    options.password = QStringLiteral("pw");
    return m_core.connect(options);
}

Policy AuditAtomicityTest::banningPolicy()
{
    Policy policy = makePolicy("like", 2, 60000);
    policy.banMs = 3600000;
    return policy;
}

Result<Reply> AuditAtomicityTest::rawHit(const QByteArray& globalKey)
{
    const ScriptInfo* hit = ScriptLibrary::instance().find(QStringLiteral("hit"));
    if (!hit)
        return Error{ErrorKind::NotFound, QStringLiteral("no hit script")};
    if (auto loaded = m_core.inspect({"SCRIPT", "LOAD", hit->source}); !loaded)
        return loaded;
    return m_core.inspect({"EVALSHA",
                           hit->sha1,
                           "6",
                           "tg:{amy}:ban",
                           "tg:{amy}:like:ban",
                           "tg:{amy}:overrides",
                           "tg:{amy}:audit",
                           globalKey,
                           "tg:{amy}:like:fw:60000",
                           "hit",
                           "fixed_window",
                           "1",
                           "0",
                           "0",
                           "3600000",
                           "",
                           "0",
                           "amy",
                           "like",
                           "",
                           "first_hit",
                           "2",
                           "60000"});
}

void AuditAtomicityTest::autoBanWritesBothEntriesOnce()
{
    const Policy policy = banningPolicy();
    for (int i = 0; i < 2; ++i) {
        const auto allowed = m_core.hit(policy, "42");
        QVERIFY2(allowed && allowed->allowed, why(allowed).constData());
    }
    const auto denied = m_core.hit(policy, "42");
    QVERIFY2(denied, why(denied).constData());
    QCOMPARE(denied->tier, Tier::Deny);

    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("42", "like")}), qint64(1));
    const auto user = m_core.userAudit("42");
    QCOMPARE(user->size(), size_t(1));
    QCOMPARE(user->front().event, QStringLiteral("auto_ban"));
    // Exactly one global entry, written by the script (the client no longer mirrors it).
    const auto global = m_core.userAudit({});
    QCOMPARE(global->size(), size_t(1));
    const AuditEntry& entry = global->front();
    QCOMPARE(entry.event, QStringLiteral("auto_ban"));
    QCOMPARE(entry.user, QByteArray("42"));
    QCOMPARE(entry.action, QByteArray("like"));
    QCOMPARE(entry.actor, QStringLiteral("tollgate"));
    QCOMPARE(entry.untilMs, user->front().untilMs);
    // The same event reads the same in both streams.
    QCOMPARE(entry.reason, QStringLiteral("limit exceeded: 3/2 per 60000 ms"));
    QCOMPARE(user->front().reason, entry.reason);
    QCOMPARE(user->front().actor, entry.actor);
}

void AuditAtomicityTest::autoBanFromAnyClientReachesGlobalAudit()
{
    for (int i = 0; i < 2; ++i)
        QCOMPARE(rawHit("tg:audit")->elements.at(1).toBytes(), QByteArray("ok"));
    const auto denied = rawHit("tg:audit");
    QVERIFY2(denied, why(denied).constData());
    QCOMPARE(denied->elements.at(1).toBytes(), QByteArray("deny"));
    const auto global = m_core.userAudit({});
    QCOMPARE(global->size(), size_t(1));
    QCOMPARE(global->front().event, QStringLiteral("auto_ban"));
    QCOMPARE(global->front().user, QByteArray("amy"));
}

void AuditAtomicityTest::emptyGlobalKeyMeansNoMirror_data()
{
    QTest::addColumn<QByteArray>("globalKey");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("the user's own stream again (Cluster)") << QByteArray("tg:{amy}:audit");
}

void AuditAtomicityTest::emptyGlobalKeyMeansNoMirror()
{
    QFETCH(QByteArray, globalKey);
    for (int i = 0; i < 2; ++i)
        QVERIFY(rawHit(globalKey));
    const auto denied = rawHit(globalKey);
    QVERIFY2(denied, why(denied).constData());
    QCOMPARE(denied->elements.at(1).toBytes(), QByteArray("deny"));
    QCOMPARE(m_core.integer({"EXISTS", "tg:audit"}), qint64(0));
    QCOMPARE(m_core.integer({"XLEN", "tg:{amy}:audit"}), qint64(1)); // one entry, not two
    QCOMPARE(m_core.integer({"EXISTS", "tg:{amy}:like:ban"}), qint64(1));
}

void AuditAtomicityTest::refusedAutoBanWritesNothing_data()
{
    QTest::addColumn<QList<QByteArray>>("rules");
    QTest::addColumn<int>("allowedHits");
    QTest::newRow("+@all -xadd") << QList<QByteArray>{"~*", "&*", "+@all", "-xadd"} << 2;
    // The global audit key is one of hit.lua's KEYS: EVALSHA itself is refused, for every hit.
    QTest::newRow("no access to tg:audit")
        << QList<QByteArray>{"~tg:{*", "~tg:policy:*", "&*", "+@all"} << 0;
    QTest::newRow("may not publish events")
        << QList<QByteArray>{"~*", "resetchannels", "+@all"} << 2;
    QTest::newRow("may not set a TTL") << QList<QByteArray>{"~*", "&*", "+@all", "-pexpireat"} << 2;
}

void AuditAtomicityTest::refusedAutoBanWritesNothing()
{
    QFETCH(QList<QByteArray>, rules);
    QFETCH(int, allowedHits);
    auto client = connectAs("limited", rules);
    QVERIFY2(client, qPrintable(m_core.errorString()));
    Limiter limiter(client.get(), m_core.schema());
    Policy policy = banningPolicy();
    auto hit = [&] {
        return await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.hit(policy, "42", 0, context, std::move(done));
        });
    };
    for (int i = 0; i < allowedHits; ++i) {
        const auto allowed = hit();
        QVERIFY2(allowed && allowed->allowed, why(allowed).constData());
    }
    const QByteArray counter = m_core.bytes({"GET", "tg:{42}:like:fw:60000"});
    QCOMPARE(counter, allowedHits ? QByteArray::number(allowedHits) : QByteArray());

    const auto refused = hit();
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::NoPerm);
    if (allowedHits > 0)
        QVERIFY2(refused.error().message.contains(QStringLiteral("nothing was written")),
                 qPrintable(refused.error().message));
    QCOMPARE(m_core.integer({"EXISTS", "tg:{42}:like:ban"}), qint64(0));
    QCOMPARE(m_core.integer({"EXISTS", "tg:{42}:audit"}), qint64(0));
    QCOMPARE(m_core.integer({"EXISTS", "tg:audit"}), qint64(0));
    QCOMPARE(m_core.bytes({"GET", "tg:{42}:like:fw:60000"}), counter);
}

void AuditAtomicityTest::stringAtGlobalAuditIsNamed()
{
    QVERIFY(m_core.inspect({"SET", "tg:audit", "not a stream"}));
    const Policy policy = banningPolicy();
    QVERIFY(m_core.hit(policy, "42")->allowed);
    QVERIFY(m_core.hit(policy, "42")->allowed);
    const auto refused = m_core.hit(policy, "42");
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::WrongType);
    QVERIFY2(refused.error().message.contains(QStringLiteral("tg:audit")),
             qPrintable(refused.error().message));
    QCOMPARE(m_core.integer({"EXISTS", "tg:{42}:like:ban"}), qint64(0));
    QCOMPARE(m_core.integer({"EXISTS", "tg:{42}:audit"}), qint64(0));
    QCOMPARE(m_core.bytes({"GET", "tg:audit"}), QByteArray("not a stream"));
}

void AuditAtomicityTest::counterNeverLeftWithoutItsTtl()
{
    // A sliding-window counter is an HSET then a PEXPIRE. HSET is allowed, PEXPIRE is not:
    // hit.lua checks both before the first write, so no counter is created that would never
    // expire (the bug Tollgate exists to prevent).
    auto client = connectAs("limited", {"~*", "&*", "+@all", "-pexpire"});
    QVERIFY2(client, qPrintable(m_core.errorString()));
    Limiter limiter(client.get(), m_core.schema());
    const auto refused = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(makePolicy("like", 5, 60000, Algorithm::SlidingWindow), "42", 0, context,
                    std::move(done));
    });
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::NoPerm);
    QVERIFY2(refused.error().message.contains(QStringLiteral("PEXPIRE")),
             qPrintable(refused.error().message));
    QCOMPARE(m_core.dbsize(), qint64(0));
    // A peek is read-only and still answers.
    const auto peek = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.peek(makePolicy("like", 5, 60000, Algorithm::SlidingWindow), "42", 0, context,
                     std::move(done));
    });
    QVERIFY2(peek && peek->allowed, why(peek).constData());
}

void AuditAtomicityTest::seed()
{
    QVERIFY(m_core.save(makePolicy("like", 5, 60000)));
    QVERIFY(m_core.hit(makePolicy("like", 5, 60000), "42"));
    BanRequest request{"42", "like", QStringLiteral("admin"), QStringLiteral("spam"), 3600000, 0};
    QVERIFY(await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        m_core.moderation().ban(request, context, std::move(done));
    }));
    QVERIFY(m_core.inspect({"PERSIST", "tg:{42}:like:fw:60000"}));
}

QMap<QByteArray, QByteArray> AuditAtomicityTest::snapshot()
{
    QMap<QByteArray, QByteArray> keys;
    const auto scan = m_core.inspect({"SCAN", "0", "COUNT", "10000"});
    if (!scan || scan->elements.size() < 2)
        return keys;
    for (const Reply& key : scan->elements[1].elements) {
        const QByteArray name = key.toBytes();
        keys[name] = m_core.bytes({"DUMP", name}) + (m_core.pttl(name) > 0 ? "+ttl" : "");
    }
    return keys;
}

Status AuditAtomicityTest::write(Client* client, const QString& op)
{
    Moderation moderation(client, m_core.schema());
    PolicyStore policies(client, m_core.schema());
    const QString actor = QStringLiteral("limited");
    const QString reason = QStringLiteral("test");
    auto count = [](Result<qint64> r) { return r ? Status(Unit{}) : Status(r.error()); };
    if (op == QLatin1String("repair")) {
        RepairOptions options;
        options.actor = actor;
        options.reason = reason;
        const auto r = await<RepairReport>([&](QObject* context, Callback<RepairReport> done) {
            Repair(client, m_core.schema())
                .fixKeys({"tg:{42}:like:fw:60000"}, options, {}, context, std::move(done));
        });
        if (r && r->totals.fixed != 1)
            return Error{ErrorKind::Protocol, QStringLiteral("repair fixed %1 keys, expected 1")
                                                  .arg(r->totals.fixed)};
        return r ? Status(Unit{}) : Status(r.error());
    }
    if (op == QLatin1String("ban")) {
        BanRequest request{"42", {}, actor, reason, 60000, 0};
        const auto r = await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
            moderation.ban(request, context, std::move(done));
        });
        return r ? Status(Unit{}) : Status(r.error());
    }
    if (op == QLatin1String("unban") || op == QLatin1String("reset"))
        return count(await<qint64>([&](QObject* context, Callback<qint64> done) {
            if (op == QLatin1String("unban"))
                moderation.unban("42", {}, actor, reason, context, std::move(done));
            else
                moderation.reset("42", {}, actor, reason, context, std::move(done));
        }));
    if (op == QLatin1String("policy_set")) {
        Policy policy = makePolicy("like", 7, 60000);
        policy.revision = 1;
        return count(await<qint64>([&](QObject* context, Callback<qint64> done) {
            policies.save(policy, actor, context, std::move(done));
        }));
    }
    const qint64 revision = m_core.bytes({"HGET", "tg:policy:like", "revision"}).toLongLong();
    return await<Unit>([&](QObject* context, Callback<Unit> done) {
        policies.remove("like", revision, actor, context, std::move(done));
    });
}

void AuditAtomicityTest::everyWriteHasBothEntries()
{
    seed();
    qint64 global = m_core.integer({"XLEN", "tg:audit"});
    QCOMPARE(global, qint64(2)); // the seed's policy and ban
    qint64 user = m_core.integer({"XLEN", "tg:{42}:audit"});
    for (const char* op : {"repair", "reset", "unban", "ban", "policy_set", "policy_delete"}) {
        const Status status = write(m_core.client(), QString::fromLatin1(op));
        QVERIFY2(status, QByteArray(QByteArray(op) + ' ' + why(status)).constData());
        QCOMPARE(m_core.integer({"XLEN", "tg:audit"}), ++global);
        const auto newest = m_core.userAudit({}, 1);
        QCOMPARE(newest->front().event,
                 QString::fromLatin1(op).replace(QStringLiteral("policy_set"),
                                                 QStringLiteral("policy")));
        QCOMPARE(newest->front().actor, QStringLiteral("limited"));
        QCOMPARE(newest->front().action.isEmpty(), !QByteArray(op).startsWith("policy"));
        if (!QByteArray(op).startsWith("policy"))
            QCOMPARE(m_core.integer({"XLEN", "tg:{42}:audit"}), ++user);
        if (QByteArray(op) == "repair") {
            QCOMPARE(newest->front().detail, QStringLiteral("fixed=1: tg:{42}:like:fw:60000"));
            QCOMPARE(m_core.userAudit("42", 1)->front().detail, newest->front().detail);
            QVERIFY(m_core.pttl("tg:{42}:like:fw:60000") > 0);
        }
    }
    QCOMPARE(m_core.userAudit({}, 1)->front().detail, QStringLiteral("deleted=1"));
}

void AuditAtomicityTest::refusedWritesChangeNothing_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<QList<QByteArray>>("rules");
    QTest::addColumn<bool>("stringAtAudit");
    const QList<QPair<const char*, QList<QByteArray>>> users{
        {"+@all -xadd", {"~*", "&*", "+@all", "-xadd"}},
        {"no access to tg:audit", {"~tg:{*", "~tg:policy:*", "&*", "+@all"}},
        {"may not publish", {"~*", "resetchannels", "+@all"}},
        {"tg:audit holds a string", {"~*", "&*", "+@all"}},
    };
    for (const char* op : {"repair", "ban", "unban", "reset", "policy_set", "policy_delete"}) {
        for (const auto& [name, rules] : users) {
            if (QByteArray(op) == "repair" && QByteArray(name) == "may not publish")
                continue; // a repair publishes nothing
            QTest::addRow("%s, %s", op, name) << QString::fromLatin1(op) << rules
                                              << (QByteArray(name) == "tg:audit holds a string");
        }
    }
}

void AuditAtomicityTest::refusedWritesChangeNothing()
{
    QFETCH(QString, op);
    QFETCH(QList<QByteArray>, rules);
    QFETCH(bool, stringAtAudit);
    seed();
    if (stringAtAudit) {
        QVERIFY(m_core.inspect({"DEL", "tg:audit"}));
        QVERIFY(m_core.inspect({"SET", "tg:audit", "not a stream"}));
    }
    auto client = connectAs("limited", rules);
    QVERIFY2(client, qPrintable(m_core.errorString()));
    const auto before = snapshot();
    QVERIFY(before.size() >= 4);

    const Status status = write(client.get(), op);
    QVERIFY(!status);
    QCOMPARE(status.error().kind, stringAtAudit ? ErrorKind::WrongType : ErrorKind::NoPerm);
    if (stringAtAudit)
        QVERIFY2(status.error().message.contains(QStringLiteral("tg:audit")),
                 qPrintable(status.error().message));
    QCOMPARE(snapshot(), before);
}

QTEST_GUILESS_MAIN(AuditAtomicityTest)
#include "tst_AuditAtomicity.moc"
