// Hostile and broken input: odd ids round-trip exactly, oversized ids and absurd policies are
// refused before anything is written, corrupt keys give a typed error naming the key and are
// left as they were, and an ACL user without rights gets NoPerm.

#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

Q_DECLARE_METATYPE(tollgate::Policy)

class BadInputTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void oddIdsRoundTrip_data();
    void oddIdsRoundTrip();
    void hugeUserIdWritesNothing();
    void corruptCounter_data();
    void corruptCounter();
    void absurdPolicyRejected_data();
    void absurdPolicyRejected();
    void banNeedsReasonAndActor();
    void aclUserWithoutRights();

private:
    Result<BanInfo> ban(const BanRequest& request);
    Result<qint64> unban(const QByteArray& user, const QByteArray& action, const QString& reason);

    CoreFixture m_core;
};

void BadInputTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void BadInputTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<BanInfo> BadInputTest::ban(const BanRequest& request)
{
    return await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        m_core.moderation().ban(request, context, std::move(done));
    });
}

Result<qint64> BadInputTest::unban(const QByteArray& user, const QByteArray& action,
                                   const QString& reason)
{
    return await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_core.moderation().unban(user, action, QStringLiteral("test"), reason, context,
                                  std::move(done));
    });
}

void BadInputTest::oddIdsRoundTrip_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QByteArray>("action");
    QTest::newRow("unicode") << QStringLiteral("Zoë 東京 🚀").toUtf8() << QByteArray("like");
    QTest::newRow("spaces") << QByteArray(" a  b ") << QByteArray("post comment");
    QTest::newRow("colons") << QByteArray("tg:{x}:ban") << QByteArray("a:b");
    QTest::newRow("braces") << QByteArray("}{") << QByteArray("{like}");
    QTest::newRow("glob") << QByteArray("*") << QByteArray("?[*]");
    QTest::newRow("newlines") << QByteArray("a\nb\r\n") << QByteArray("x\ny");
    QTest::newRow("nul byte") << QByteArray("a\0b", 3) << QByteArray("like");
    QTest::newRow("1024 bytes") << QByteArray(1024, 'u') << QByteArray("like");
}

void BadInputTest::oddIdsRoundTrip()
{
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, action);

    // A neighbour whose keys a sloppy pattern could catch.
    Policy policy = makePolicy(action, 1, 60000);
    QVERIFY(m_core.save(policy).ok());
    QVERIFY(m_core.hit(policy, "neighbour")->allowed);

    QVERIFY(m_core.hit(policy, user)->allowed);
    QCOMPARE(m_core.hit(policy, user)->tier, Tier::Deny);
    const QByteArray counter = m_core.schema().stateKey(user, action, Algorithm::FixedWindow, 60000);
    QCOMPARE(m_core.bytes({"GET", counter}), QByteArray("1"));
    const auto parsed = m_core.schema().parse(counter);
    QCOMPARE(parsed.user, user);
    QCOMPARE(parsed.action, action);

    BanRequest request;
    request.user = user;
    request.action = action;
    request.actor = QStringLiteral("moderator");
    request.reason = QStringLiteral("spam wave");
    request.durationMs = 3600000;
    const auto banned = ban(request);
    QVERIFY2(banned.ok(), banned ? "" : qPrintable(banned.error().toString()));
    QCOMPARE(m_core.hit(policy, user)->tier, Tier::Banned);

    const auto bans = await<std::vector<BanInfo>>(
        [&](QObject* context, Callback<std::vector<BanInfo>> done) {
            m_core.moderation().bans(user, context, std::move(done));
        });
    QVERIFY(bans.ok());
    QCOMPARE(bans->size(), size_t(1));
    QCOMPARE(bans->front().user, user);
    QCOMPARE(bans->front().action, action);

    // Unbanning every action of the user finds the ban, and nothing of the neighbour's.
    const auto removed = unban(user, {}, QStringLiteral("appeal accepted"));
    QVERIFY(removed.ok());
    QCOMPARE(*removed, qint64(1));
    QCOMPARE(m_core.hit(policy, user)->tier, Tier::Deny);
    QCOMPARE(m_core.hit(policy, "neighbour")->tier, Tier::Deny);

    const auto audit = m_core.userAudit(user);
    QVERIFY(audit.ok());
    QStringList events;
    for (const AuditEntry& entry : *audit) {
        events << entry.event;
        QCOMPARE(entry.user, user);
        QCOMPARE(entry.action.isEmpty() ? action : entry.action, action);
    }
    QVERIFY2(events.contains(QStringLiteral("ban")) && events.contains(QStringLiteral("unban")),
             qPrintable(events.join(QLatin1Char(','))));
    QVERIFY(m_core.userAudit("neighbour")->empty());
}

void BadInputTest::hugeUserIdWritesNothing()
{
    const Policy policy = makePolicy("like", 10, 60000);
    QVERIFY(m_core.save(policy).ok());
    // save() mirrors into the global audit stream without waiting for it: let that land first.
    QTRY_COMPARE(m_core.integer({"EXISTS", m_core.layout().policyAuditKey()}), qint64(1));
    const qint64 keys = m_core.dbsize();
    const QByteArray huge(1 << 20, 'x');

    const auto hit = m_core.hit(policy, huge);
    QVERIFY(!hit);
    QCOMPARE(hit.error().kind, ErrorKind::InvalidInput);
    QVERIFY(hit.error().message.contains(QStringLiteral("user id")));
    QCOMPARE(m_core.peek(policy, huge).error().kind, ErrorKind::InvalidInput);

    BanRequest request;
    request.user = huge;
    request.actor = QStringLiteral("moderator");
    request.reason = QStringLiteral("test");
    QCOMPARE(ban(request).error().kind, ErrorKind::InvalidInput);
    QCOMPARE(unban(huge, {}, QStringLiteral("test")).error().kind, ErrorKind::InvalidInput);
    QCOMPARE(m_core.hit(policy, QByteArray()).error().kind, ErrorKind::InvalidInput);
    QCOMPARE(m_core.dbsize(), keys);
}

void BadInputTest::corruptCounter_data()
{
    QTest::addColumn<QByteArrayList>("setup");
    QTest::addColumn<QByteArray>("dumpCommand");
    QTest::newRow("string abc") << QByteArrayList{"SET", "<key>", "abc"} << QByteArray("GET");
    QTest::newRow("negative count") << QByteArrayList{"SET", "<key>", "-5"} << QByteArray("GET");
    QTest::newRow("hash") << QByteArrayList{"HSET", "<key>", "f", "v"} << QByteArray("HGETALL");
    QTest::newRow("list") << QByteArrayList{"RPUSH", "<key>", "a"} << QByteArray("LRANGE");
}

void BadInputTest::corruptCounter()
{
    QFETCH(QByteArrayList, setup);
    QFETCH(QByteArray, dumpCommand);

    Policy policy = makePolicy("like", 10, 60000);
    policy.banMs = 3600000;
    const QByteArray key = m_core.schema().stateKey("42", "like", Algorithm::FixedWindow, 60000);
    setup.replace(1, key);
    QVERIFY(m_core.inspect(setup).ok());
    Command dump{dumpCommand, key};
    if (dumpCommand == "LRANGE")
        dump << "0" << "-1";
    const QByteArray before = m_core.inspect(dump)->toDisplayString().toUtf8();
    const qint64 keys = m_core.dbsize();

    for (const bool peek : {false, true}) {
        const auto result = peek ? m_core.peek(policy, "42") : m_core.hit(policy, "42");
        QVERIFY(!result);
        QCOMPARE(result.error().kind, ErrorKind::WrongType);
        // hit.lua names the key for every shape: "abc", a hash, a list.
        QVERIFY2(result.error().message.contains(QString::fromUtf8(key)),
                 qPrintable(result.error().message));
    }
    QCOMPARE(m_core.inspect(dump)->toDisplayString().toUtf8(), before);
    QCOMPARE(m_core.pttl(key), qint64(-1)); // not "repaired" into something else either
    QCOMPARE(m_core.dbsize(), keys);        // no ban, no audit entry
}

void BadInputTest::absurdPolicyRejected_data()
{
    QTest::addColumn<Policy>("policy");
    auto with = [](auto change) {
        Policy p = makePolicy("absurd", 10, 60000);
        change(p);
        return p;
    };
    QTest::newRow("limit 0") << with([](Policy& p) { p.windows[0].limit = 0; });
    QTest::newRow("limit -5") << with([](Policy& p) { p.windows[0].limit = -5; });
    QTest::newRow("limit 1e15") << with([](Policy& p) { p.windows[0].limit = 1'000'000'000'000'000; });
    QTest::newRow("window 0") << with([](Policy& p) { p.windows[0].windowMs = 0; });
    QTest::newRow("window -1") << with([](Policy& p) { p.windows[0].windowMs = -1; });
    QTest::newRow("window 2 years") << with([](Policy& p) { p.windows[0].windowMs = 2 * 31536000000LL; });
    QTest::newRow("ban -1h") << with([](Policy& p) { p.banMs = -3600000; });
    QTest::newRow("warn above limit") << with([](Policy& p) { p.warn = 100; });
    QTest::newRow("cost -1") << with([](Policy& p) { p.cost = -1; });
    QTest::newRow("huge action") << with([](Policy& p) { p.action = QByteArray(1 << 20, 'a'); });
}

void BadInputTest::absurdPolicyRejected()
{
    QFETCH(Policy, policy);
    const qint64 keys = m_core.dbsize();
    const auto saved = m_core.save(policy);
    QVERIFY(!saved);
    QCOMPARE(saved.error().kind, ErrorKind::InvalidInput);
    QVERIFY(!saved.error().message.isEmpty());
    const auto hit = m_core.hit(policy, "42");
    QVERIFY(!hit);
    QCOMPARE(hit.error().kind, ErrorKind::InvalidInput);
    QCOMPARE(m_core.dbsize(), keys);
}

void BadInputTest::banNeedsReasonAndActor()
{
    BanRequest request;
    request.user = "42";
    request.actor = QStringLiteral("moderator");
    request.durationMs = 3600000;
    for (const QString& reason : {QString(), QStringLiteral("   ")}) {
        request.reason = reason;
        const auto result = ban(request);
        QVERIFY(!result);
        QCOMPARE(result.error().kind, ErrorKind::InvalidInput);
    }
    request.reason = QStringLiteral("spam");
    request.actor.clear();
    QCOMPARE(ban(request).error().kind, ErrorKind::InvalidInput);
    request.actor = QStringLiteral("moderator");
    request.durationMs = -1;
    QCOMPARE(ban(request).error().kind, ErrorKind::InvalidInput);
    request.durationMs = 3600000;
    request.untilMs = QDateTime::currentMSecsSinceEpoch() + 3600000;
    QCOMPARE(ban(request).error().kind, ErrorKind::InvalidInput); // both kinds
    QCOMPARE(unban("42", {}, QString()).error().kind, ErrorKind::InvalidInput);
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void BadInputTest::aclUserWithoutRights()
{
    // "reader" may only read: every script call (EVALSHA) and write is refused by the server.
    QVERIFY(m_core.inspect({"ACL", "SETUSER", "reader", "on", ">readerpass", "~*", "&*", "-@all",
                            "+@read", "+@connection"})
                .ok());
    ConnectionOptions options = m_core.options();
    options.user = QStringLiteral("reader");
    options.password = QStringLiteral("readerpass");
    auto client = m_core.connect(options);
    QVERIFY2(client, qPrintable(m_core.errorString()));

    const Policy policy = makePolicy("like", 10, 60000);
    Limiter limiter(client.get(), m_core.schema());
    const auto hit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(policy, "42", 0, context, std::move(done));
    });
    QVERIFY(!hit);
    QCOMPARE(hit.error().kind, ErrorKind::NoPerm);
    PolicyStore store(client.get(), m_core.schema());
    const auto saved = await<qint64>([&](QObject* context, Callback<qint64> done) {
        store.save(policy, QStringLiteral("reader"), context, std::move(done));
    });
    QCOMPARE(saved.error().kind, ErrorKind::NoPerm);
    QCOMPARE(m_core.dbsize(), qint64(0));

    // A wrong password is an Auth error, not a hang.
    options.password = QStringLiteral("wrong");
    Client wrong(options);
    wrong.open();
    QTRY_COMPARE_WITH_TIMEOUT(wrong.lastError().kind, ErrorKind::Auth, 5000);
}

QTEST_GUILESS_MAIN(BadInputTest)
#include "tst_BadInput.moc"
