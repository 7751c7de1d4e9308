// refund.lua through core (Refunds) and tollgatectl on a real redis-server (and, as
// RefundsOnCluster, on a three-primary Redis Cluster): per algorithm a refund never goes below
// empty nor lengthens a TTL, a refund of nothing writes nothing, a penalty counts past the limit
// and creates the policy's ban audited as an automatic one, ACL users that may not write get
// TG_NOPERM with every key as it was, and bad input is refused.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/AlgorithmRows.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Refunds.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

Q_DECLARE_METATYPE(tollgate::ErrorKind)

namespace {

constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 86'400'000;

// Two windows, long enough that no window turns over (or a sliding window's aligned half)
// while a test runs: 10 per hour and 20 per day; bans for an hour when `ban`.
Policy twoWindows(Algorithm algorithm, bool ban)
{
    Policy policy;
    policy.action = "ocr";
    policy.algorithm = algorithm;
    policy.windows = {{10, kHour}, {20, kDay}};
    policy.banMs = ban ? kHour : 0;
    return policy;
}

} // namespace

class RefundsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void refundNeverBelowEmptyNorLongerTtl_data() { test::algorithmRows(); }
    void refundNeverBelowEmptyNorLongerTtl();
    void refundOfNothingWritesNothing_data() { test::algorithmRows(); }
    void refundOfNothingWritesNothing();
    void refundPublishesItsEvent();
    void penaltyCountsPastTheLimitAndBans_data() { test::algorithmRows(); }
    void penaltyCountsPastTheLimitAndBans();
    void penaltyWithoutBanPolicyOnlyCounts();
    void calendarPenaltyEndsAtTheBoundaryAndBansUntilMidnight();
    void hitsRefundsAndPenaltiesMatchTheModel_data() { test::algorithmRows(); }
    void hitsRefundsAndPenaltiesMatchTheModel();
    void oddUserIdsStayInTheirSlot_data();
    void oddUserIdsStayInTheirSlot();
    void scriptRefusesBadInput_data();
    void scriptRefusesBadInput();
    void refusedAclUserWritesNothing();
    void penaltyBanIsAtomicWithItsAudit_data();
    void penaltyBanIsAtomicWithItsAudit();
    void cli();

private:
    Result<RefundResult> refund(const Policy& policy, const QByteArray& user, qint64 cost);
    Result<RefundResult> penalize(const Policy& policy, const QByteArray& user, qint64 cost,
                                  const QString& reason = QStringLiteral("abuse"));
    QList<QByteArray> stateKeys(const Policy& policy, const QByteArray& user) const;
    // Every key of the user with its value's dump and whether it has a TTL.
    QList<QByteArray> snapshot(const Policy& policy, const QByteArray& user);
    test::CliRun ctl(const QStringList& args, const QString& url = {});

    CoreFixture m_core;
};

void RefundsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void RefundsTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<RefundResult> RefundsTest::refund(const Policy& policy, const QByteArray& user, qint64 cost)
{
    const Refunds refunds(m_core.client(), m_core.schema());
    return test::await<RefundResult>(
        [&](QObject* context, auto done) { refunds.refund(policy, user, cost, context, done); });
}

Result<RefundResult> RefundsTest::penalize(const Policy& policy, const QByteArray& user,
                                           qint64 cost, const QString& reason)
{
    const Refunds refunds(m_core.client(), m_core.schema());
    return test::await<RefundResult>([&](QObject* context, auto done) {
        refunds.penalize(policy, user, cost, QStringLiteral("ops"), reason, context, done);
    });
}

QList<QByteArray> RefundsTest::stateKeys(const Policy& policy, const QByteArray& user) const
{
    QList<QByteArray> keys;
    for (const WindowLimit& w : policy.windows)
        keys << m_core.schema().stateKey(user, policy.action, policy.algorithm, w.windowMs);
    return keys;
}

QList<QByteArray> RefundsTest::snapshot(const Policy& policy, const QByteArray& user)
{
    const KeySchema& s = m_core.schema();
    QList<QByteArray> state;
    for (const QByteArray& key :
         stateKeys(policy, user) + QList<QByteArray>{s.userBanKey(user),
                                                     s.actionBanKey(user, policy.action),
                                                     s.userAuditKey(user)})
        state << key + ' ' + m_core.bytes({"DUMP", key}).toHex() + ' ' +
                     QByteArray::number(m_core.pttl(key) == -1);
    return state;
}

test::CliRun RefundsTest::ctl(const QStringList& args, const QString& url)
{
    return test::runCli(test::tollgatectlPath(), url.isEmpty() ? m_core.server().url() : url, args);
}

void RefundsTest::refundPublishesItsEvent()
{
    // Units given back may lift a refusal another process holds in memory: it hears of it.
    auto subscriber = m_core.connect(m_core.options());
    QVERIFY(subscriber);
    QList<QByteArray> events;
    connect(subscriber.get(), &Client::messageReceived, this,
            [&events](const QByteArray&, const QByteArray& payload) { events << payload; });
    auto subscribed = test::await<Reply>([&](QObject* context, Callback<Reply> done) {
        subscriber->execute({"SUBSCRIBE", m_core.schema().eventsChannel()}, context, done);
    });
    QVERIFY(subscribed);
    const Policy policy = twoWindows(Algorithm::FixedWindow, false);
    QVERIFY(refund(policy, "nora", 1)); // nothing to give back: no event
    QVERIFY(m_core.hit(policy, "nora", 2));
    const auto given = refund(policy, "nora", 1);
    QVERIFY(given && given->changed);
    QTRY_COMPARE(events.size(), 1);
    QCOMPARE(events.front(), "refund\n4\nnora" + policy.action);
}

void RefundsTest::refundNeverBelowEmptyNorLongerTtl()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = twoWindows(algorithm, false);
    QVERIFY(m_core.hit(policy, "ann", 3));
    QVERIFY(m_core.hit(policy, "ann", 3));
    QList<qint64> before;
    for (const QByteArray& key : stateKeys(policy, "ann"))
        before << m_core.pttl(key);

    auto back = refund(policy, "ann", 2);
    QVERIFY2(back, qPrintable(back ? QString() : back.error().toString()));
    QVERIFY(back->changed);
    QVERIFY(!back->banCreated);
    QCOMPARE(back->count, qint64(4)); // the hour's window, the one with the least room
    QCOMPARE(back->limit, qint64(10));
    QCOMPARE(back->remaining, qint64(6));
    auto peek = m_core.peek(policy, "ann", 1);
    QVERIFY(peek);
    QCOMPARE(peek->count, qint64(5)); // what a hit of 1 would make it

    back = refund(policy, "ann", 1000); // far more than was counted: down to empty, no further
    QVERIFY(back && back->changed);
    QCOMPARE(back->count, qint64(0));
    QCOMPARE(back->remaining, qint64(10));
    QCOMPARE(back->resetMs, qint64(0));
    back = refund(policy, "ann", 1);
    QVERIFY(back && !back->changed);
    QCOMPARE(back->count, qint64(0));

    const QList<QByteArray> keys = stateKeys(policy, "ann");
    for (int i = 0; i < keys.size(); ++i) {
        const qint64 after = m_core.pttl(keys[i]);
        // gone, or still expiring no later than before (time only shortens it)
        QVERIFY2(after == -2 || (after > 0 && after <= before[i]),
                 qPrintable(QStringLiteral("%1: PTTL %2 before, %3 after")
                                .arg(QString::fromUtf8(keys[i]))
                                .arg(before[i])
                                .arg(after)));
    }
    // Hits count from empty again: the whole limit fits.
    auto hit = m_core.hit(policy, "ann", 10);
    QVERIFY(hit && hit->allowed);
}

void RefundsTest::refundOfNothingWritesNothing()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = twoWindows(algorithm, true);
    auto back = refund(policy, "nobody", 0);
    QVERIFY2(back, qPrintable(back ? QString() : back.error().toString()));
    QVERIFY(!back->changed);
    QCOMPARE(back->count, qint64(0));
    QCOMPARE(back->remaining, qint64(10));
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void RefundsTest::penaltyCountsPastTheLimitAndBans()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = twoWindows(algorithm, true);
    auto taken = penalize(policy, "bob", 6);
    QVERIFY2(taken, qPrintable(taken ? QString() : taken.error().toString()));
    QVERIFY(taken->changed && !taken->banCreated);
    QCOMPARE(taken->count, qint64(6));

    const qint64 now = m_core.serverNowMs();
    taken = penalize(policy, "bob", 9, QStringLiteral("scraping"));
    QVERIFY2(taken, qPrintable(taken ? QString() : taken.error().toString()));
    QVERIFY(taken->banCreated);
    QCOMPARE(taken->count, qint64(15)); // past the limit: every unit counted
    QCOMPARE(taken->remaining, qint64(0));
    QVERIFY(taken->banUntilMs >= now + kHour);

    const QByteArray banKey = m_core.schema().actionBanKey("bob", policy.action);
    QCOMPARE(m_core.bytes({"HGET", banKey, "source"}), QByteArray("auto"));
    QCOMPARE(m_core.bytes({"HGET", banKey, "actor"}), QByteArray("ops"));
    QCOMPARE(m_core.integer({"PEXPIRETIME", banKey}), taken->banUntilMs);
    auto audit = m_core.userAudit("bob");
    QVERIFY(audit && !audit->empty());
    QCOMPARE(audit->front().event, QStringLiteral("auto_ban"));
    QVERIFY2(audit->front().reason.contains(QStringLiteral("penalty: scraping")),
             qPrintable(audit->front().reason));
    // The windows end with the ban, as after an automatic ban of a hit.
    for (const QByteArray& key : stateKeys(policy, "bob"))
        QVERIFY(m_core.integer({"PEXPIRETIME", key}) <= taken->banUntilMs);
    auto hit = m_core.hit(policy, "bob", 1);
    QVERIFY(hit && hit->tier == Tier::Banned);

    // A penalty during the ban still counts and creates no second ban.
    const qint64 entries = audit->size();
    taken = penalize(policy, "bob", 1);
    QVERIFY(taken && taken->changed && !taken->banCreated);
    QCOMPARE(qint64(m_core.userAudit("bob")->size()), entries);
}

void RefundsTest::penaltyWithoutBanPolicyOnlyCounts()
{
    const Policy policy = twoWindows(Algorithm::FixedWindow, false);
    auto taken = penalize(policy, "cy", 25);
    QVERIFY(taken && taken->changed && !taken->banCreated);
    QCOMPARE(taken->count, qint64(25));
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("cy", policy.action)}),
             qint64(0));
    auto hit = m_core.hit(policy, "cy", 1);
    QVERIFY(hit && !hit->allowed);
    // A penalty that is not audited without a ban; the reason is still required.
    taken = penalize(policy, "cy", 1, QStringLiteral(" "));
    QVERIFY(!taken && taken.error().kind == ErrorKind::InvalidInput);
}

// A model of every algorithm while no window turns over (hours and days, a run of milliseconds):
// a hit of c counts c in every window when all fit, else nothing; a refund takes min(c, count)
// off each window; a penalty adds c to each. 300 random steps, the same for every algorithm.
// Local time through refund.lua too: a new calendar counter ends on the hour, a ban "until
// midnight" at the next midnight (UTC here, whole hours from the epoch).
void RefundsTest::calendarPenaltyEndsAtTheBoundaryAndBansUntilMidnight()
{
    Policy policy;
    policy.action = "ocr";
    policy.windows = {{10, kHour}};
    policy.calendarAligned = true;
    policy.banUntilMidnight = true;
    const qint64 now = m_core.serverNowMs();
    auto taken = penalize(policy, "ida", 4);
    QVERIFY2(taken, qPrintable(taken ? QString() : taken.error().toString()));
    const QByteArray key = stateKeys(policy, "ida").front();
    const qint64 hourEnd = m_core.integer({"PEXPIRETIME", key});
    QVERIFY2(hourEnd % kHour == 0 && hourEnd > now && hourEnd <= now + kHour + 1000,
             qPrintable(QString::number(hourEnd)));
    QVERIFY(!taken->banCreated);
    taken = penalize(policy, "ida", 7);
    QVERIFY(taken && taken->banCreated);
    QVERIFY2(taken->banUntilMs % kDay == 0 && taken->banUntilMs > now,
             qPrintable(QString::number(taken->banUntilMs)));
    QCOMPARE(m_core.integer({"PEXPIRETIME", key}), hourEnd); // (LT: the earlier end stays)
}

void RefundsTest::hitsRefundsAndPenaltiesMatchTheModel()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = twoWindows(algorithm, false);
    QRandomGenerator random(24);
    std::vector<qint64> model(policy.windows.size(), 0);
    for (int step = 0; step < 300; ++step) {
        const qint64 cost = 1 + random.bounded(6);
        const int kind = random.bounded(3);
        qint64 count = 0, remaining = 0;
        if (kind == 0) {
            bool fits = true;
            for (size_t i = 0; i < model.size(); ++i)
                fits = fits && model[i] + cost <= policy.windows[i].limit;
            auto hit = m_core.hit(policy, "gil", cost);
            QVERIFY(hit);
            QCOMPARE(hit->allowed, fits);
            if (!fits)
                continue; // a denial reports the denying window: not compared here
            for (qint64& c : model)
                c += cost;
            count = hit->count;
            remaining = hit->remaining;
        } else {
            auto result = kind == 1 ? refund(policy, "gil", cost) : penalize(policy, "gil", cost);
            QVERIFY2(result, qPrintable(result ? QString() : result.error().toString()));
            for (qint64& c : model)
                c = kind == 1 ? std::max<qint64>(c - cost, 0) : c + cost;
            count = result->count;
            remaining = result->remaining;
        }
        // The reply's window: the smallest remaining, the first of equals.
        size_t binding = 0;
        for (size_t i = 1; i < model.size(); ++i)
            if (policy.windows[i].limit - model[i] < policy.windows[binding].limit - model[binding])
                binding = i;
        QVERIFY2(count == model[binding],
                 qPrintable(QStringLiteral("step %1 (kind %2, cost %3): count %4, model %5")
                                .arg(step)
                                .arg(kind)
                                .arg(cost)
                                .arg(count)
                                .arg(model[binding])));
        QCOMPARE(remaining, std::max<qint64>(policy.windows[binding].limit - model[binding], 0));
        if (model[0] > 30) { // back near the limit, where it matters
            const qint64 back = model[0] - 5;
            QVERIFY(refund(policy, "gil", back));
            for (qint64& c : model)
                c = std::max<qint64>(c - back, 0);
        }
    }
}

void RefundsTest::oddUserIdsStayInTheirSlot_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::newRow("unicode") << QByteArray("Zoë 東京");
    QTest::newRow("spaces") << QByteArray("  two  spaces ");
    QTest::newRow("colon") << QByteArray("a:b:ban");
    QTest::newRow("braces") << QByteArray("{x}{");
    QTest::newRow("star") << QByteArray("*");
    QTest::newRow("newline") << QByteArray("line\nbreak");
}

void RefundsTest::oddUserIdsStayInTheirSlot()
{
    QFETCH(QByteArray, user);
    const Policy policy = twoWindows(Algorithm::SlidingLog, true);
    QVERIFY(m_core.hit(policy, user, 4));
    auto back = refund(policy, user, 3);
    QVERIFY2(back, qPrintable(back ? QString() : back.error().toString()));
    QCOMPARE(back->count, qint64(1));
    auto taken = penalize(policy, user, 10);
    QVERIFY2(taken, qPrintable(taken ? QString() : taken.error().toString()));
    QVERIFY(taken->banCreated);
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey(user, policy.action)}),
             qint64(1));
}

void RefundsTest::scriptRefusesBadInput_data()
{
    QTest::addColumn<QByteArray>("mode");
    QTest::addColumn<QByteArray>("cost");
    QTest::addColumn<QByteArray>("actor");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("cost 0") << QByteArray("refund") << QByteArray("0") << QByteArray()
                            << QByteArray("cost must be");
    QTest::newRow("negative") << QByteArray("penalize") << QByteArray("-2") << QByteArray("ops")
                              << QByteArray("cost must be");
    QTest::newRow("absurd") << QByteArray("refund") << QByteArray("99999999999") << QByteArray()
                            << QByteArray("cost must be");
    QTest::newRow("mode") << QByteArray("hit") << QByteArray("1") << QByteArray()
                          << QByteArray("mode must be refund or penalize");
    QTest::newRow("no actor") << QByteArray("penalize") << QByteArray("1") << QByteArray()
                              << QByteArray("penalize needs an actor");
}

void RefundsTest::scriptRefusesBadInput()
{
    QFETCH(QByteArray, mode);
    QFETCH(QByteArray, cost);
    QFETCH(QByteArray, actor);
    QFETCH(QByteArray, expected);
    const Policy policy = twoWindows(Algorithm::FixedWindow, true);
    QVERIFY(m_core.hit(policy, "dee", 2));
    const QList<QByteArray> before = snapshot(policy, "dee");
    const ScriptInfo* script = ScriptLibrary::instance().find(QStringLiteral("refund"));
    QVERIFY(script);
    const KeySchema& s = m_core.schema();
    const QByteArray stream = s.userAuditKey("dee");
    Command keys{s.userBanKey("dee"), s.actionBanKey("dee", "ocr"), s.overridesKey("dee"), stream,
                 m_core.layout().auditMirror(stream)};
    keys << stateKeys(policy, "dee");
    const Command args{mode,  "fixed_window",
                       cost,  "0",
                       "0",   "3600000",
                       "",    "0",
                       "dee", "ocr",
                       "",    "first_hit",
                       actor, actor.isEmpty() ? QByteArray() : "why",
                       "10",  "3600000",
                       "20",  "86400000"};
    auto reply = m_core.inspect(Command{"EVAL", script->source, QByteArray::number(keys.size())} +
                                keys + args);
    QVERIFY(!reply);
    QCOMPARE(reply.error().kind, ErrorKind::InvalidInput); // TG_INVALID
    QVERIFY2(reply.error().message.startsWith(QString::fromUtf8(expected)),
             qPrintable(reply.error().message));
    QCOMPARE(snapshot(policy, "dee"), before);
}

void RefundsTest::refusedAclUserWritesNothing()
{
    const Policy policy = twoWindows(Algorithm::TokenBucket, true);
    QVERIFY(m_core.save(policy));
    QVERIFY(m_core.hit(policy, "eve", 4));
    // May run the script on every key, but not SET (the token bucket's write).
    for (const auto& set : m_core.onEveryPrimary({"ACL", "SETUSER", "reader", "reset", "on",
                                                  ">reader-pw", "~*", "&*", "+@all", "-set"}))
        QVERIFY(set);
    ConnectionOptions options = m_core.options();
    options.user = QStringLiteral("reader");
    options.password = QStringLiteral("reader-pw");
    auto client = m_core.connect(options);
    QVERIFY(client);
    const QList<QByteArray> before = snapshot(policy, "eve");
    const Refunds refunds(client.get(), m_core.schema());
    auto back = test::await<RefundResult>(
        [&](QObject* context, auto done) { refunds.refund(policy, "eve", 2, context, done); });
    QVERIFY(!back && back.error().kind == ErrorKind::NoPerm);
    auto taken = test::await<RefundResult>([&](QObject* context, auto done) {
        refunds.penalize(policy, "eve", 50, QStringLiteral("ops"), QStringLiteral("x"), context,
                         done);
    });
    QVERIFY(!taken && taken.error().kind == ErrorKind::NoPerm);
    QCOMPARE(snapshot(policy, "eve"), before);

    const test::CliRun run =
        ctl({QStringLiteral("penalize"), QStringLiteral("ocr"), QStringLiteral("eve"),
             QStringLiteral("--cost"), QStringLiteral("50"), QStringLiteral("--reason"),
             QStringLiteral("x")},
            options.toUrl(true));
    QVERIFY2(run.code == 3 && run.err.contains("nothing was written"), qPrintable(run.describe()));
    QCOMPARE(snapshot(policy, "eve"), before);
}

void RefundsTest::penaltyBanIsAtomicWithItsAudit_data()
{
    QTest::addColumn<QList<QByteArray>>("rules"); // ACL rules; empty = the default user
    QTest::addColumn<bool>("stringAudit");        // the user's audit stream holds a string
    QTest::addColumn<ErrorKind>("kind");
    QTest::newRow("+@all -xadd") << QList<QByteArray>{"~*", "&*", "+@all", "-xadd"} << false
                                 << ErrorKind::NoPerm;
    QTest::newRow("may not publish")
        << QList<QByteArray>{"~*", "resetchannels", "+@all"} << false << ErrorKind::NoPerm;
    QTest::newRow("audit stream holds a string")
        << QList<QByteArray>{} << true << ErrorKind::WrongType;
}

// A penalty that would ban writes the counters, the ban, both audit entries and the event, or
// none of them.
void RefundsTest::penaltyBanIsAtomicWithItsAudit()
{
    QFETCH(QList<QByteArray>, rules);
    QFETCH(bool, stringAudit);
    QFETCH(ErrorKind, kind);
    const Policy policy = twoWindows(Algorithm::SlidingWindow, true);
    QVERIFY(m_core.hit(policy, "hal", 8));
    if (stringAudit)
        QVERIFY(m_core.inspect({"SET", m_core.schema().userAuditKey("hal"), "x"}));
    std::unique_ptr<Client> limited;
    if (!rules.isEmpty()) {
        for (const auto& set : m_core.onEveryPrimary(
                 Command{"ACL", "SETUSER", "limited", "reset", "on", ">limited-pw"} + rules))
            QVERIFY(set);
        ConnectionOptions options = m_core.options();
        options.user = QStringLiteral("limited");
        options.password = QStringLiteral("limited-pw");
        limited = m_core.connect(options);
        QVERIFY(limited);
    }
    const QList<QByteArray> before = snapshot(policy, "hal");
    const Refunds refunds(limited ? limited.get() : m_core.client(), m_core.schema());
    auto taken = test::await<RefundResult>([&](QObject* context, auto done) {
        refunds.penalize(policy, "hal", 5, QStringLiteral("ops"), QStringLiteral("x"), context,
                         done);
    });
    QVERIFY(!taken);
    QCOMPARE(taken.error().kind, kind);
    if (stringAudit)
        QVERIFY2(
            taken.error().message.contains(QString::fromUtf8(m_core.schema().userAuditKey("hal"))),
            qPrintable(taken.error().message));
    QCOMPARE(snapshot(policy, "hal"), before);
}

void RefundsTest::cli()
{
    const Policy policy = twoWindows(Algorithm::FixedWindow, true);
    QVERIFY(m_core.save(policy));
    QVERIFY(m_core.hit(policy, "fay", 5));
    test::CliRun run = ctl({QStringLiteral("--json"), QStringLiteral("refund"),
                            QStringLiteral("ocr"), QStringLiteral("fay")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("count")).toInt(), 4); // the policy's cost, 1
    QCOMPARE(run.object().value(QStringLiteral("changed")).toBool(), true);

    run = ctl({QStringLiteral("refund"), QStringLiteral("ocr"), QStringLiteral("nobody")});
    QVERIFY2(run.code == 0 && run.out.contains("nothing to refund"), qPrintable(run.describe()));

    run = ctl({QStringLiteral("--json"), QStringLiteral("penalize"), QStringLiteral("ocr"),
               QStringLiteral("fay"), QStringLiteral("--cost"), QStringLiteral("7"),
               QStringLiteral("--reason"), QStringLiteral("abuse")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("count")).toInt(), 11);
    QCOMPARE(run.object().value(QStringLiteral("ban_created")).toBool(), true);

    // Usage errors (exit 2, nothing written) and an unknown action (exit 3).
    const QList<QByteArray> before = snapshot(policy, "fay");
    const QList<QStringList> refused{
        {QStringLiteral("penalize"), QStringLiteral("ocr"), QStringLiteral("fay"),
         QStringLiteral("--reason"), QStringLiteral("r")},
        {QStringLiteral("penalize"), QStringLiteral("ocr"), QStringLiteral("fay"),
         QStringLiteral("--cost"), QStringLiteral("2")},
        {QStringLiteral("refund"), QStringLiteral("ocr"), QStringLiteral("fay"),
         QStringLiteral("--cost"), QStringLiteral("0")},
        {QStringLiteral("refund"), QStringLiteral("ocr"), QStringLiteral("fay"),
         QStringLiteral("--cost"), QStringLiteral("-3")},
        {QStringLiteral("refund"), QStringLiteral("ocr"), QStringLiteral("fay"),
         QStringLiteral("--cost"), QStringLiteral("99999999999")},
    };
    for (const QStringList& args : refused) {
        run = ctl(args);
        QVERIFY2(run.code == 2,
                 qPrintable(args.join(u' ') + QStringLiteral(": ") + run.describe()));
    }
    run = ctl({QStringLiteral("refund"), QStringLiteral("no-such-action"), QStringLiteral("fay")});
    QVERIFY2(run.code == 3, qPrintable(run.describe()));
    QCOMPARE(snapshot(policy, "fay"), before);
}

QTEST_GUILESS_MAIN(RefundsTest)
#include "tst_Refunds.moc"
