// Per-user overrides through core (OverrideStore, Limiter, Refunds) and the scripts on a real
// redis-server (and, as OverridesOnCluster, on a three-primary Redis Cluster): a limit override
// decides exactly as a policy with its windows would (model: a twin user on that policy), with
// the policy's window lengths or others (the TG_OVERRIDE redirect), for every algorithm; an
// exemption is counted but never denied nor banned; an override ends on its own and the user
// falls back to the policy; set and delete are audited, indexed and all-or-nothing under ACLs;
// odd ids work. The CLI's shapes and bad input: tst_OverridesCli.

#include "tests/support/CoreFixture.h"
#include "tollgate/Overrides.h"
#include "tollgate/Refunds.h"
#include "tollgate/Repair.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

Q_DECLARE_METATYPE(tollgate::Algorithm)

namespace {

constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 86'400'000;

Policy policyOf(Algorithm algorithm, std::vector<WindowLimit> windows, qint64 banMs = 0)
{
    Policy policy;
    policy.action = "ocr";
    policy.algorithm = algorithm;
    policy.windows = std::move(windows);
    policy.banMs = banMs;
    return policy;
}

void algorithmRows()
{
    QTest::addColumn<Algorithm>("algorithm");
    QTest::newRow("fixed_window") << Algorithm::FixedWindow;
    QTest::newRow("sliding_log") << Algorithm::SlidingLog;
    QTest::newRow("sliding_window") << Algorithm::SlidingWindow;
    QTest::newRow("token_bucket") << Algorithm::TokenBucket;
}

} // namespace

class OverridesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void limitOverrideActsAsItsPolicy_data();
    void limitOverrideActsAsItsPolicy();
    void refundsAndPenaltiesCountInTheOverride_data() { algorithmRows(); }
    void refundsAndPenaltiesCountInTheOverride();
    void exemptionIsCountedNeverDeniedNorBanned_data() { algorithmRows(); }
    void exemptionIsCountedNeverDeniedNorBanned();
    void actionOverrideWinsOverEveryAction();
    void everyActionLimitPastTheAlgorithmIsItsMaximum();
    void overrideEndsAndTheUserFallsBackToThePolicy();
    void setListDeleteAreAuditedAndIndexed();
    void reindexRebuildsTheIndex();
    void repairGivesALostTtlBack();
    void refusedAclUserWritesNothing();
    void oddIdsWork_data();
    void oddIdsWork();
    void badRequestsAreRefused();

private:
    Result<Override> set(const OverrideRequest& request, Client* client = nullptr);
    Result<bool> remove(const QByteArray& user, const QByteArray& action);
    Result<std::vector<Override>> list(const QByteArray& action = {});
    Result<std::vector<Override>> ofUser(const QByteArray& user);
    OverrideRequest limit(const QByteArray& user, const QByteArray& action,
                          std::vector<WindowLimit> windows, qint64 durationMs = kHour) const;

    CoreFixture m_core;
};

void OverridesTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void OverridesTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<Override> OverridesTest::set(const OverrideRequest& request, Client* client)
{
    const OverrideStore store(client ? client : m_core.client(), m_core.schema());
    return test::await<Override>(
        [&](QObject* context, auto done) { store.set(request, context, done); });
}

Result<bool> OverridesTest::remove(const QByteArray& user, const QByteArray& action)
{
    const OverrideStore store(m_core.client(), m_core.schema());
    return test::await<bool>([&](QObject* context, auto done) {
        store.remove(user, action, QStringLiteral("ops"), QStringLiteral("over"), context, done);
    });
}

Result<std::vector<Override>> OverridesTest::list(const QByteArray& action)
{
    const OverrideStore store(m_core.client(), m_core.schema());
    return test::await<std::vector<Override>>(
        [&](QObject* context, auto done) { store.list(action, context, done); });
}

Result<std::vector<Override>> OverridesTest::ofUser(const QByteArray& user)
{
    const OverrideStore store(m_core.client(), m_core.schema());
    return test::await<std::vector<Override>>(
        [&](QObject* context, auto done) { store.ofUser(user, context, done); });
}

OverrideRequest OverridesTest::limit(const QByteArray& user, const QByteArray& action,
                                     std::vector<WindowLimit> windows, qint64 durationMs) const
{
    OverrideRequest request;
    request.user = user;
    request.action = action;
    request.windows = std::move(windows);
    request.durationMs = durationMs;
    request.actor = QStringLiteral("ops");
    request.reason = QStringLiteral("trial");
    return request;
}

void OverridesTest::limitOverrideActsAsItsPolicy_data()
{
    QTest::addColumn<Algorithm>("algorithm");
    QTest::addColumn<bool>("sameWindows"); // the policy's window lengths, or others (redirect)
    for (const auto& [name, algorithm] : {std::pair{"fixed_window", Algorithm::FixedWindow},
                                          {"sliding_log", Algorithm::SlidingLog},
                                          {"sliding_window", Algorithm::SlidingWindow},
                                          {"token_bucket", Algorithm::TokenBucket}}) {
        QTest::addRow("%s, the policy's windows", name) << algorithm << true;
        QTest::addRow("%s, other windows", name) << algorithm << false;
    }
}

// The model: a user with a limit override is decided exactly as a user without one under the
// policy with the override's windows (same algorithm, rest of the policy), reply by reply.
void OverridesTest::limitOverrideActsAsItsPolicy()
{
    QFETCH(Algorithm, algorithm);
    QFETCH(bool, sameWindows);
    const Policy policy = policyOf(algorithm, {{3, kHour}, {5, kDay}}, kHour);
    const std::vector<WindowLimit> windows =
        sameWindows ? std::vector<WindowLimit>{{7, kHour}, {9, kDay}}
                    : std::vector<WindowLimit>{{6, 2 * kHour}, {8, 3 * kDay}};
    Policy twin = withOverrideWindows(policy, windows);
    QVERIFY(set(limit("ann", "ocr", windows)));
    quint32 seed = 24;
    for (int i = 0; i < 14; ++i) {
        seed = seed * 1103515245 + 12345;
        const qint64 cost = 1 + (seed >> 16) % 3;
        auto mine = m_core.hit(policy, "ann", cost);
        auto model = m_core.hit(twin, "twin", cost);
        QVERIFY2(mine && model, qPrintable(!mine    ? mine.error().toString()
                                           : !model ? model.error().toString()
                                                    : QString()));
        const QString at = QStringLiteral("hit %1, cost %2").arg(i).arg(cost);
        QCOMPARE(mine->appliedOverride, AppliedOverride::Limit);
        QCOMPARE(model->appliedOverride, AppliedOverride::None);
        QVERIFY2(mine->allowed == model->allowed && mine->tier == model->tier &&
                     mine->count == model->count && mine->limit == model->limit &&
                     mine->remaining == model->remaining &&
                     (mine->retryAfterMs > 0) == (model->retryAfterMs > 0),
                 qPrintable(at));
    }
    // The model banned when it ran out, with the policy's ban: so did the override's user.
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("ann", "ocr")}),
             m_core.integer({"EXISTS", m_core.schema().actionBanKey("twin", "ocr")}));
    // Only the override's windows were written; the policy's own are untouched when they differ.
    for (const WindowLimit& w : windows)
        QCOMPARE(m_core.integer(
                     {"EXISTS", m_core.schema().stateKey("ann", "ocr", algorithm, w.windowMs)}),
                 qint64(1));
    if (!sameWindows)
        for (const WindowLimit& w : policy.windows)
            QCOMPARE(m_core.integer(
                         {"EXISTS", m_core.schema().stateKey("ann", "ocr", algorithm, w.windowMs)}),
                     qint64(0));
    // A user without an override keeps the policy.
    auto other = m_core.hit(policy, "bob");
    QVERIFY(other);
    QCOMPARE(other->limit, qint64(3));
    QCOMPARE(other->appliedOverride, AppliedOverride::None);
}

// refund.lua reads the override as the hit does: a penalty and a refund count in the
// override's windows (through the redirect when they are not the policy's), and its ban is the
// policy's when the override's limit is crossed.
void OverridesTest::refundsAndPenaltiesCountInTheOverride()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = policyOf(algorithm, {{3, kHour}}, kHour);
    QVERIFY(set(limit("gil", "ocr", {{6, 2 * kHour}})));
    const Refunds refunds(m_core.client(), m_core.schema());
    auto taken = test::await<RefundResult>([&](QObject* context, auto done) {
        refunds.penalize(policy, "gil", 5, QStringLiteral("ops"), QStringLiteral("abuse"), context,
                         done);
    });
    QVERIFY2(taken, qPrintable(taken ? QString() : taken.error().toString()));
    QCOMPARE(taken->limit, qint64(6));
    QCOMPARE(taken->count, qint64(5));
    QVERIFY(!taken->banCreated); // 5 fit in 6
    const QByteArray overrideWindow = m_core.schema().stateKey("gil", "ocr", algorithm, 2 * kHour);
    QCOMPARE(m_core.integer({"EXISTS", overrideWindow}), qint64(1));
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().stateKey("gil", "ocr", algorithm, kHour)}),
             qint64(0));
    auto back = test::await<RefundResult>(
        [&](QObject* context, auto done) { refunds.refund(policy, "gil", 2, context, done); });
    QVERIFY(back && back->changed);
    QCOMPARE(back->count, qint64(3));
    taken = test::await<RefundResult>([&](QObject* context, auto done) {
        refunds.penalize(policy, "gil", 4, QStringLiteral("ops"), QStringLiteral("abuse"), context,
                         done);
    });
    QVERIFY(taken);
    QVERIFY(taken->banCreated); // 3 + 4 > 6: the policy's ban
}

void OverridesTest::exemptionIsCountedNeverDeniedNorBanned()
{
    QFETCH(Algorithm, algorithm);
    const Policy policy = policyOf(algorithm, {{2, kHour}}, kHour);
    OverrideRequest exempt = limit("cy", "*", {});
    exempt.kind = OverrideKind::Unlimited;
    QVERIFY(set(exempt));
    for (int i = 1; i <= 6; ++i) {
        auto hit = m_core.hit(policy, "cy");
        QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
        QVERIFY2(hit->allowed, qPrintable(QStringLiteral("hit %1").arg(i)));
        QCOMPARE(hit->appliedOverride, AppliedOverride::Unlimited);
        QCOMPARE(hit->retryAfterMs, qint64(0));
        // counted in the policy's window, as a denied hit that counts (a log and a bucket hold
        // no more than the limit)
        const bool capped =
            algorithm == Algorithm::SlidingLog || algorithm == Algorithm::TokenBucket;
        QCOMPARE(hit->count, capped ? std::min<qint64>(i, 2) : qint64(i));
    }
    const Refunds refunds(m_core.client(), m_core.schema());
    auto penalty = test::await<RefundResult>([&](QObject* context, auto done) {
        refunds.penalize(policy, "cy", 5, QStringLiteral("ops"), QStringLiteral("abuse"), context,
                         done);
    });
    QVERIFY(penalty);
    QVERIFY(!penalty->banCreated);
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("cy", "ocr")}), qint64(0));
    // Without the exemption the same count is denied.
    QVERIFY(remove("cy", "*"));
    auto hit = m_core.hit(policy, "cy");
    QVERIFY(hit);
    QVERIFY(!hit->allowed);
    QCOMPARE(hit->appliedOverride, AppliedOverride::None);
}

void OverridesTest::actionOverrideWinsOverEveryAction()
{
    const Policy policy = policyOf(Algorithm::FixedWindow, {{2, kHour}});
    OverrideRequest every = limit("dee", "*", {});
    every.kind = OverrideKind::Unlimited;
    QVERIFY(set(every));
    QVERIFY(set(limit("dee", "ocr", {{4, kHour}})));
    auto hit = m_core.hit(policy, "dee");
    QVERIFY(hit);
    QCOMPARE(hit->appliedOverride, AppliedOverride::Limit);
    QCOMPARE(hit->limit, qint64(4));
    Policy other = policy;
    other.action = "upload";
    hit = m_core.hit(other, "dee");
    QVERIFY(hit);
    QCOMPARE(hit->appliedOverride, AppliedOverride::Unlimited);
}

// A "*" override meets every policy of the user: a limit a sliding log cannot hold counts as the
// log's maximum, with the policy's windows (the script) and with others (the client).
void OverridesTest::everyActionLimitPastTheAlgorithmIsItsMaximum()
{
    const Policy log = policyOf(Algorithm::SlidingLog, {{2, kHour}});
    QVERIFY(set(limit("nia", "*", {{500'000, kHour}})));
    auto hit = m_core.hit(log, "nia");
    QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
    QCOMPARE(hit->limit, Policy::kMaxSlidingLogLimit);
    QVERIFY(set(limit("nia", "*", {{500'000, 2 * kHour}})));
    hit = m_core.hit(log, "nia");
    QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
    QCOMPARE(hit->limit, Policy::kMaxSlidingLogLimit);
    QCOMPARE(hit->appliedOverride, AppliedOverride::Limit);
}

void OverridesTest::overrideEndsAndTheUserFallsBackToThePolicy()
{
    const Policy policy = policyOf(Algorithm::FixedWindow, {{2, kHour}});
    OverrideRequest shortLived = limit("eve", "ocr", {{5, 2 * kHour}}, 1500);
    auto stored = set(shortLived);
    QVERIFY(stored);
    const QByteArray key = m_core.schema().overridesKey("eve");
    const qint64 ttl = m_core.pttl(key);
    QVERIFY2(ttl > 0 && ttl <= 1500, qPrintable(QString::number(ttl))); // it has a TTL: its end
    auto hit = m_core.hit(policy, "eve");
    QVERIFY(hit);
    QCOMPARE(hit->limit, qint64(5));
    // At its end the user is back on the policy, the hash expires and the listing forgets it.
    QTRY_VERIFY_WITH_TIMEOUT(m_core.integer({"EXISTS", key}) == 0, 10000);
    hit = m_core.hit(policy, "eve");
    QVERIFY(hit);
    QCOMPARE(hit->limit, qint64(2));
    QCOMPARE(hit->appliedOverride, AppliedOverride::None);
    auto all = list();
    QVERIFY(all);
    QVERIFY(all->empty());
    // A permanent override keeps the key without TTL; deleting it is the only end.
    OverrideRequest permanent = limit("eve", "ocr", {{5, kHour}}, 0);
    permanent.permanent = true;
    QVERIFY(set(permanent));
    QCOMPARE(m_core.pttl(key), qint64(-1));
    QVERIFY(set(limit("eve", "upload", {{5, kHour}})));
    QCOMPARE(m_core.pttl(key), qint64(-1)); // still permanent while one field is
    QVERIFY(remove("eve", "ocr"));
    QVERIFY(m_core.pttl(key) > 0); // now the timed one's end
}

void OverridesTest::setListDeleteAreAuditedAndIndexed()
{
    auto stored = set(limit("fay", "ocr", {{10, kHour}, {100, kDay}}));
    QVERIFY2(stored, qPrintable(stored ? QString() : stored.error().toString()));
    QVERIFY(stored->setMs > 0 && stored->untilMs > stored->setMs);
    OverrideRequest exempt = limit("gus", "*", {}, 0);
    exempt.kind = OverrideKind::Unlimited;
    exempt.permanent = true;
    QVERIFY(set(exempt));

    auto all = list();
    QVERIFY(all);
    QCOMPARE(all->size(), size_t(2));
    auto upload = list("upload"); // gus's "*" applies, fay's "ocr" does not
    QVERIFY(upload);
    QCOMPARE(upload->size(), size_t(1));
    QCOMPARE(upload->front().user, QByteArray("gus"));
    auto fay = ofUser("fay");
    QVERIFY(fay);
    QCOMPARE(fay->size(), size_t(1));
    QCOMPARE(fay->front().windows, (std::vector<WindowLimit>{{10, kHour}, {100, kDay}}));
    QCOMPARE(fay->front().reason, QStringLiteral("trial"));
    QCOMPARE(fay->front().actor, QStringLiteral("ops"));

    auto audit = m_core.userAudit("fay");
    QVERIFY(audit);
    QCOMPARE(audit->size(), size_t(1));
    QCOMPARE(audit->front().event, QStringLiteral("override"));
    QCOMPARE(audit->front().detail, QStringLiteral("limit 3600000:10,86400000:100"));
    QCOMPARE(audit->front().reason, QStringLiteral("trial"));
    // The global mirror (none on a cluster: the user's slot holds no global stream).
    const qint64 global = m_core.onCluster() ? 0 : 2;
    QCOMPARE(m_core.integer({"XLEN", m_core.schema().auditKey()}), global);

    auto deleted = remove("fay", "ocr");
    QVERIFY(deleted && *deleted);
    deleted = remove("fay", "ocr");
    QVERIFY(deleted && !*deleted); // nothing left, still audited
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().overridesKey("fay")}), qint64(0));
    audit = m_core.userAudit("fay");
    QVERIFY(audit);
    QCOMPARE(audit->size(), size_t(3));
    QCOMPARE(audit->front().event, QStringLiteral("override_delete"));
    all = list();
    QVERIFY(all);
    QCOMPARE(all->size(), size_t(1));
    QCOMPARE(m_core.integer({"ZCARD", m_core.layout().overrideIndexKey()}), qint64(1));
}

void OverridesTest::reindexRebuildsTheIndex()
{
    QVERIFY(set(limit("hal", "ocr", {{10, kHour}})));
    QVERIFY(set(limit("ida", "ocr", {{10, kHour}})));
    QVERIFY(m_core.inspect({"DEL", m_core.layout().overrideIndexKey()}));
    auto all = list();
    QVERIFY(all && all->empty());
    const OverrideStore store(m_core.client(), m_core.schema());
    auto count =
        test::await<qint64>([&](QObject* context, auto done) { store.reindex(context, done); });
    QVERIFY2(count, qPrintable(count ? QString() : count.error().toString()));
    QCOMPARE(*count, qint64(2));
    all = list();
    QVERIFY(all);
    QCOMPARE(all->size(), size_t(2));
}

// An overrides hash that lost its TTL (PERSIST by hand) would outlive its overrides: repair.lua
// gives it the latest end of its fields back; one with a permanent field is left as it is.
void OverridesTest::repairGivesALostTtlBack()
{
    QVERIFY(set(limit("lu", "ocr", {{10, kHour}}, kHour)));
    QVERIFY(set(limit("lu", "upload", {{10, kHour}}, 2 * kHour)));
    OverrideRequest permanent = limit("mo", "ocr", {{10, kHour}}, 0);
    permanent.permanent = true;
    QVERIFY(set(permanent));
    const QByteArray lu = m_core.schema().overridesKey("lu");
    QVERIFY(m_core.inspect({"PERSIST", lu}));
    RepairOptions options;
    options.fix = true;
    options.reason = QStringLiteral("lost ttl");
    const Repair repair(m_core.client(), m_core.schema());
    auto report = test::await<RepairReport>(
        [&](QObject* context, auto done) { repair.run(options, {}, context, done); });
    QVERIFY2(report, qPrintable(report ? QString() : report.error().toString()));
    const qint64 ttl = m_core.pttl(lu);
    QVERIFY2(ttl > kHour && ttl <= 2 * kHour, qPrintable(QString::number(ttl)));
    QCOMPARE(m_core.pttl(m_core.schema().overridesKey("mo")), qint64(-1));
}

void OverridesTest::refusedAclUserWritesNothing()
{
    QVERIFY(set(limit("jo", "ocr", {{10, kHour}})));
    const QByteArray before = m_core.bytes({"HGETALL", m_core.schema().overridesKey("jo")});
    for (const auto& rules : {QList<QByteArray>{"~*", "&*", "+@all", "-xadd"},
                              QList<QByteArray>{"~*", "&*", "+@all", "-hset"},
                              QList<QByteArray>{"~*", "resetchannels", "+@all"}}) {
        for (const auto& setUser : m_core.onEveryPrimary(
                 Command{"ACL", "SETUSER", "limited", "reset", "on", ">limited-pw"} + rules))
            QVERIFY(setUser);
        ConnectionOptions options = m_core.options();
        options.user = QStringLiteral("limited");
        options.password = QStringLiteral("limited-pw");
        auto client = m_core.connect(options);
        QVERIFY(client);
        auto refused = set(limit("jo", "ocr", {{20, kHour}}), client.get());
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::NoPerm);
        refused = set(limit("kim", "ocr", {{20, kHour}}), client.get());
        QVERIFY(!refused);
        QCOMPARE(m_core.bytes({"HGETALL", m_core.schema().overridesKey("jo")}), before);
        QCOMPARE(m_core.integer({"EXISTS", m_core.schema().overridesKey("kim")}), qint64(0));
        QCOMPARE(m_core.integer({"XLEN", m_core.schema().userAuditKey("jo")}), qint64(1));
        QCOMPARE(m_core.integer({"EXISTS", m_core.schema().userAuditKey("kim")}), qint64(0));
    }
}

void OverridesTest::oddIdsWork_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::addColumn<QByteArray>("action");
    QTest::newRow("unicode") << QByteArray("Zoë 東京") << QByteArray("ünï");
    QTest::newRow("spaces") << QByteArray("a b") << QByteArray("up load");
    QTest::newRow("colon and braces") << QByteArray("a:b{c}") << QByteArray("x:{y}");
    QTest::newRow("star") << QByteArray("*") << QByteArray("**");
    QTest::newRow("newline and bytes") << QByteArray("l1\nl2\xff") << QByteArray("\r\n\t");
    QTest::newRow("1024 bytes") << QByteArray(1024, 'u') << QByteArray(1024, 'a');
}

void OverridesTest::oddIdsWork()
{
    QFETCH(QByteArray, user);
    QFETCH(QByteArray, action);
    Policy policy = policyOf(Algorithm::SlidingWindow, {{2, kHour}});
    policy.action = action;
    QVERIFY(set(limit(user, action, {{4, kHour}})));
    QVERIFY(set(limit(user, "other", {{4, kHour}})));
    for (int i = 1; i <= 5; ++i) {
        auto hit = m_core.hit(policy, user);
        QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
        QCOMPARE(hit->allowed, i <= 4);
        QCOMPARE(hit->appliedOverride, AppliedOverride::Limit);
    }
    auto mine = ofUser(user);
    QVERIFY(mine);
    QCOMPARE(mine->size(), size_t(2));
    auto all = list(action);
    QVERIFY(all);
    QCOMPARE(all->size(), size_t(1));
    QCOMPARE(all->front().user, user);
    QCOMPARE(all->front().action, action);
    QVERIFY(remove(user, action));
    auto hit = m_core.hit(policy, user);
    QVERIFY(hit);
    QCOMPARE(hit->appliedOverride, AppliedOverride::None);
    QCOMPARE(hit->limit, qint64(2));
}

void OverridesTest::badRequestsAreRefused()
{
    const qint64 keys = m_core.dbsize();
    QList<OverrideRequest> bad;
    bad << limit("u", "ocr", {{0, kHour}});                   // a limit of 0
    bad << limit("u", "ocr", {{5, 400 * kDay}});              // a window past a year
    bad << limit("u", "ocr", {{5, kHour}}, 0);                // no end
    bad << limit("u", "ocr", {{5, kHour}}, 101 * 365 * kDay); // longer than 100 years
    bad << limit("u", "ocr", {});                             // a limit without windows
    bad << limit(QByteArray(1024 * 1024, 'u'), "ocr", {{5, kHour}});
    bad << limit("", "ocr", {{5, kHour}});
    OverrideRequest noReason = limit("u", "ocr", {{5, kHour}});
    noReason.reason.clear();
    bad << noReason;
    OverrideRequest windowsAndExempt = limit("u", "ocr", {{5, kHour}});
    windowsAndExempt.kind = OverrideKind::Unlimited;
    bad << windowsAndExempt;
    for (const OverrideRequest& request : bad) {
        auto refused = set(request);
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
    }
    QCOMPARE(m_core.dbsize(), keys);
}

QTEST_GUILESS_MAIN(OverridesTest)
#include "tst_Overrides.moc"
