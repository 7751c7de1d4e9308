// Shadow policies through core, the statistics, the exporter and tollgatectl on a real
// redis-server (and, as ShadowModeOnCluster, on a three-primary Redis Cluster): per algorithm a
// shadow hit is allowed with the enforced decision in its reply, writes no ban, no auto_ban audit
// entry and no ban event, counts denied hits only with count_denied, reports a ban in force
// without being refused; ACL users refused a write the shadow hit needs get TG_NOPERM with every
// key as it was; the statistics and the exposition count would-deny and would-ban; the CLI
// switches a policy to shadow and back as ordinary, audited revisions.

#include "core/limiter/HitStats.h"
#include "core/limiter/PreparedHit.h"
#include "core/metrics/Exposition.h"
#include "core/metrics/ScrapeCollector.h"
#include "core/scripts/ScriptRunner.h"
#include "tests/support/AlgorithmRows.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;


namespace {

constexpr qint64 kHour = 3'600'000;
constexpr qint64 kDay = 86'400'000;

// 3 per hour and 5 per day (no window turns over while a test runs), shadow, banning for an
// hour when `ban`.
Policy shadowPolicy(Algorithm algorithm, bool ban)
{
    Policy policy;
    policy.action = "like";
    policy.algorithm = algorithm;
    policy.windows = {{3, kHour}, {5, kDay}};
    policy.banMs = ban ? kHour : 0;
    policy.shadow = true;
    return policy;
}

} // namespace

class ShadowModeTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void shadowAllowsAndReportsTheEnforcedDecision_data() { test::algorithmRows(); }
    void shadowAllowsAndReportsTheEnforcedDecision();
    void countDeniedCountsPastTheLimit_data() { test::algorithmRows(); }
    void countDeniedCountsPastTheLimit();
    void plainShadowPolicyTakesTheShortForm();
    void banInForceIsReportedNotEnforced();
    void failClosedStillAllowsAShadowHit();
    void refusedAclUserWritesNothing();
    void statisticsAndExposition();
    void cliSwitchesToShadowAndBack();

private:
    // Every key of the user with its value's dump, its TTL state, and the global audit length.
    QList<QByteArray> snapshot(const Policy& policy, const QByteArray& user);
    test::CliRun ctl(const QStringList& args)
    {
        return test::runCli(test::tollgatectlPath(), m_core.server().url(), args);
    }

    CoreFixture m_core;
};

void ShadowModeTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void ShadowModeTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

QList<QByteArray> ShadowModeTest::snapshot(const Policy& policy, const QByteArray& user)
{
    const KeySchema& s = m_core.schema();
    QList<QByteArray> keys{s.userBanKey(user), s.actionBanKey(user, policy.action),
                           s.userAuditKey(user)};
    for (const WindowLimit& w : policy.windows)
        keys << s.stateKey(user, policy.action, policy.algorithm, w.windowMs);
    QList<QByteArray> state;
    for (const QByteArray& key : keys)
        state << key + ' ' + m_core.bytes({"DUMP", key}).toHex() + ' ' +
                     QByteArray::number(m_core.pttl(key) == -1);
    return state;
}

void ShadowModeTest::shadowAllowsAndReportsTheEnforcedDecision()
{
    QFETCH(Algorithm, algorithm);
    const Policy shadow = shadowPolicy(algorithm, true);
    Policy enforced = shadow;
    enforced.action = "like-enforced";
    enforced.shadow = false;
    for (int i = 1; i <= 5; ++i) {
        auto s = m_core.hit(shadow, "ann");
        auto e = m_core.hit(enforced, "bob");
        QVERIFY2(s, qPrintable(s ? QString() : s.error().message));
        QVERIFY2(e, qPrintable(e ? QString() : e.error().message));
        QVERIFY(s->shadow && s->allowed);
        QVERIFY(!e->shadow);
        if (i <= 3) {
            QVERIFY(e->allowed && !s->wouldDeny() && !s->wouldBan);
            QCOMPARE(s->tier, e->tier);
        } else {
            // Enforced: the 4th hit denies and bans, the 5th meets the ban. Shadow: every
            // hit past the limit denies and would ban, as no ban was written.
            QCOMPARE(s->tier, Tier::Deny);
            QVERIFY(s->wouldDeny() && s->wouldBan);
            QCOMPARE(e->tier, i == 4 ? Tier::Deny : Tier::Banned);
            QVERIFY(!e->allowed);
            QVERIFY(s->retryAfterMs > kHour - 5'000 && s->retryAfterMs <= kHour);
        }
        QCOMPARE(s->count, e->count);
        QCOMPARE(s->limit, e->limit);
        QCOMPARE(s->remaining, e->remaining);
    }
    const KeySchema& schema = m_core.schema();
    QCOMPARE(m_core.integer({"EXISTS", schema.actionBanKey("ann", "like")}), qint64(0));
    QCOMPARE(m_core.integer({"EXISTS", schema.actionBanKey("bob", "like-enforced")}), qint64(1));
    auto audit = m_core.userAudit("ann");
    QVERIFY(audit);
    QVERIFY(audit->empty());
    // The state holds the three counted hits, as enforcing leaves it.
    if (algorithm == Algorithm::FixedWindow)
        QCOMPARE(m_core.bytes({"GET", schema.stateKey("ann", "like", algorithm, kHour)}),
                 QByteArray("3"));
    if (algorithm == Algorithm::SlidingLog)
        QCOMPARE(m_core.integer({"ZCARD", schema.stateKey("ann", "like", algorithm, kHour)}),
                 qint64(3));
}

void ShadowModeTest::countDeniedCountsPastTheLimit()
{
    QFETCH(Algorithm, algorithm);
    Policy shadow = shadowPolicy(algorithm, false);
    shadow.countDenied = true;
    Policy enforced = shadow;
    enforced.action = "like-enforced";
    enforced.shadow = false;
    for (int i = 1; i <= 6; ++i) {
        auto s = m_core.hit(shadow, "cid");
        auto e = m_core.hit(enforced, "cid");
        QVERIFY(s && e);
        QVERIFY(s->allowed && s->shadow && !s->wouldBan);
        QCOMPARE(s->allowed && s->wouldDeny(), !e->allowed);
        QCOMPARE(s->tier, e->tier);
        QCOMPARE(s->count, e->count);
    }
}

void ShadowModeTest::plainShadowPolicyTakesTheShortForm()
{
    const Policy shadow = shadowPolicy(Algorithm::FixedWindow, false);
    auto prepared = PreparedHit::prepare(shadow, m_core.layout());
    QVERIFY(prepared);
    QVERIFY((*prepared)->shortForm());
    for (int i = 1; i <= 4; ++i) {
        auto hit = m_core.hit(shadow, "dee");
        QVERIFY(hit && hit->allowed && hit->shadow);
        QCOMPARE(hit->wouldDeny(), i == 4);
    }
    // A peek of a shadow policy answers as enforcing would: denied.
    auto peek = m_core.peek(shadow, "dee");
    QVERIFY(peek && !peek->allowed && !peek->shadow);
}

void ShadowModeTest::banInForceIsReportedNotEnforced()
{
    const Policy shadow = shadowPolicy(Algorithm::SlidingWindow, true);
    BanRequest ban;
    ban.user = "eve";
    ban.action = shadow.action;
    ban.actor = QStringLiteral("ops");
    ban.reason = QStringLiteral("manual");
    ban.durationMs = kHour;
    QVERIFY(test::await<BanInfo>([&](QObject* context, auto done) {
        m_core.moderation().ban(ban, context, done);
    }));
    auto hit = m_core.hit(shadow, "eve");
    QVERIFY(hit);
    QVERIFY(hit->allowed && hit->shadow && hit->wouldDeny() && !hit->wouldBan);
    QCOMPARE(hit->tier, Tier::Banned);
    QVERIFY(hit->retryAfterMs > kHour - 5'000 && hit->retryAfterMs <= kHour);
    QCOMPARE(hit->count, qint64(0)); // nothing counts during a ban, as when enforced
}

// When Redis cannot answer, a failure policy that denies still lets a shadow policy's hit pass,
// reporting the denial as the would-be answer; a peek keeps the enforced answer.
void ShadowModeTest::failClosedStillAllowsAShadowHit()
{
    Policy policy = shadowPolicy(Algorithm::FixedWindow, false);
    const Error down{ErrorKind::Io, QStringLiteral("connection refused")};
    auto hit = Limiter::answerWithoutRedis(FailureMode::FailClosed, nullptr, policy, "ivy", 1,
                                           true, down);
    QVERIFY(hit && hit->allowed && hit->shadow && hit->wouldDeny());
    QCOMPARE(hit->decidedBy, DecidedBy::FailClosed);
    auto peek = Limiter::answerWithoutRedis(FailureMode::FailClosed, nullptr, policy, "ivy", 1,
                                            false, down);
    QVERIFY(peek && !peek->allowed && !peek->shadow);
    policy.shadow = false;
    hit = Limiter::answerWithoutRedis(FailureMode::FailClosed, nullptr, policy, "ivy", 1, true,
                                      down);
    QVERIFY(hit && !hit->allowed && !hit->shadow);
}

void ShadowModeTest::refusedAclUserWritesNothing()
{
    const Policy shadow = shadowPolicy(Algorithm::FixedWindow, true);
    QVERIFY(m_core.hit(shadow, "fay"));
    // May not SET (the fixed window's count): refused, nothing written.
    for (const auto& set : m_core.onEveryPrimary({"ACL", "SETUSER", "noset", "reset", "on",
                                                  ">pw", "~*", "&*", "+@all", "-set"}))
        QVERIFY(set);
    // May not write a ban (HSET) nor an audit entry (XADD): a shadow hit needs neither.
    for (const auto& set : m_core.onEveryPrimary({"ACL", "SETUSER", "noban", "reset", "on", ">pw",
                                                  "~*", "&*", "+@all", "-hset", "-xadd"}))
        QVERIFY(set);
    ConnectionOptions options = m_core.options();
    options.password = QStringLiteral("pw");
    options.user = QStringLiteral("noset");
    auto noset = m_core.connect(options);
    options.user = QStringLiteral("noban");
    auto noban = m_core.connect(options);
    QVERIFY(noset && noban);
    const QList<QByteArray> before = snapshot(shadow, "fay");
    Limiter refused(noset.get(), m_core.schema());
    auto hit = test::await<HitResult>(
        [&](QObject* context, auto done) { refused.hit(shadow, "fay", 0, context, done); });
    QVERIFY(!hit && hit.error().kind == ErrorKind::NoPerm);
    QCOMPARE(snapshot(shadow, "fay"), before);

    Limiter shadowOnly(noban.get(), m_core.schema());
    for (int i = 2; i <= 5; ++i) {
        hit = test::await<HitResult>(
            [&](QObject* context, auto done) { shadowOnly.hit(shadow, "fay", 0, context, done); });
        QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().message));
        QCOMPARE(hit->wouldBan, i > 3);
    }
    QCOMPARE(m_core.integer({"EXISTS", m_core.schema().actionBanKey("fay", "like")}), qint64(0));
}

void ShadowModeTest::statisticsAndExposition()
{
    const Policy shadow = shadowPolicy(Algorithm::TokenBucket, true);
    QVERIFY(m_core.save(shadow));
    Limiter limiter(m_core.client(), m_core.schema());
    limiter.setRecordStats(true);
    for (int i = 0; i < 6; ++i)
        QVERIFY(test::await<HitResult>(
            [&](QObject* context, auto done) { limiter.hit(shadow, "gus", 0, context, done); }));
    HitStats::of(m_core.client(), m_core.schema())->flush();
    const QByteArray key = m_core.schema().statsKey("like");
    QTRY_COMPARE(m_core.bytes({"HGET", key, "total:h"}), QByteArray("6"));
    QCOMPARE(m_core.bytes({"HGET", key, "total:wd"}), QByteArray("3"));
    QCOMPARE(m_core.bytes({"HGET", key, "total:wb"}), QByteArray("3"));
    QCOMPARE(m_core.integer({"HEXISTS", key, "total:d"}), qint64(0));
    QCOMPARE(m_core.integer({"HEXISTS", key, "total:ab"}), qint64(0));
    // Counts that cannot add up are refused, nothing written.
    for (const Command& bad : {Command{"counts", "2", "2", "0", "0", "0", "0", "0", "3", "0"},
                               Command{"counts", "5", "5", "0", "0", "0", "0", "0", "1", "2"},
                               Command{"counts", "5", "5", "2", "2", "0", "0", "0", "2", "0"}}) {
        auto refused = test::await<Reply>([&](QObject* context, auto done) {
            runScript(m_core.client(), QStringLiteral("stats"), {key}, bad, context, done);
        });
        QVERIFY(!refused && refused.error().message.contains(QStringLiteral("would_ban")));
    }
    QCOMPARE(m_core.bytes({"HGET", key, "total:h"}), QByteArray("6"));

    ScrapeCollector collector(m_core.client(), m_core.schema());
    std::optional<MetricsSnapshot> snapshot;
    collector.collect([&](MetricsSnapshot s, std::vector<ScrapeProblem>) { snapshot = std::move(s); });
    QTRY_VERIFY(snapshot.has_value());
    const QByteArray text = renderMetrics(*snapshot, ExpositionFormat::Prometheus004);
    QVERIFY2(text.contains("tollgate_shadow_denied_total{action=\"like\"} 3\n"), text.constData());
    QVERIFY(text.contains("tollgate_shadow_banned_total{action=\"like\"} 3\n"));
    QVERIFY(text.contains("shadow=\"true\""));
    QVERIFY(text.contains("tollgate_hits_total{action=\"like\",outcome=\"allowed\"} 6\n"));
}

void ShadowModeTest::cliSwitchesToShadowAndBack()
{
    test::CliRun run = ctl({QStringLiteral("--json"), QStringLiteral("policy"),
                            QStringLiteral("set"), QStringLiteral("like"),
                            QStringLiteral("--limit"), QStringLiteral("2"),
                            QStringLiteral("--window"), QStringLiteral("10m"),
                            QStringLiteral("--ban"), QStringLiteral("1h"),
                            QStringLiteral("--shadow")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("shadow")).toBool(), true);
    const QStringList hit{QStringLiteral("--json"), QStringLiteral("hit"), QStringLiteral("like"),
                          QStringLiteral("hal")};
    for (int i = 1; i <= 3; ++i) {
        run = ctl(hit);
        QVERIFY2(run.code == 0, qPrintable(run.describe())); // never denied
        QCOMPARE(run.object().value(QStringLiteral("allowed")).toBool(), true);
        QCOMPARE(run.object().value(QStringLiteral("shadow")).toBool(), true);
        QCOMPARE(run.object().value(QStringLiteral("tier")).toString(),
                 i < 3 ? QStringLiteral("ok") : QStringLiteral("deny"));
        QCOMPARE(run.object().value(QStringLiteral("would_ban")).toBool(), i == 3);
    }
    run = ctl({QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("hal")});
    QVERIFY2(run.code == 0 && run.out.contains("shadow: enforcing would deny and ban"),
             qPrintable(run.describe()));

    // Both flags at once is a usage error; --enforce alone switches the stored policy.
    run = ctl({QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
               QStringLiteral("--shadow"), QStringLiteral("--enforce")});
    QCOMPARE(run.code, 2);
    run = ctl({QStringLiteral("--json"), QStringLiteral("policy"), QStringLiteral("set"),
               QStringLiteral("like"), QStringLiteral("--enforce"), QStringLiteral("--revision"),
               QStringLiteral("7")});
    QVERIFY2(run.code == 3 && run.err.contains("revision"), qPrintable(run.describe()));
    run = ctl({QStringLiteral("--json"), QStringLiteral("policy"), QStringLiteral("set"),
               QStringLiteral("like"), QStringLiteral("--enforce")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("shadow")).toBool(), false);
    QCOMPARE(run.object().value(QStringLiteral("revision")).toInt(), 2);
    QCOMPARE(run.object().value(QStringLiteral("ban_ms")).toInteger(), kHour); // the rest kept
    run = ctl({QStringLiteral("--json"), QStringLiteral("policy"), QStringLiteral("set"),
               QStringLiteral("like"), QStringLiteral("--enforce")});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QCOMPARE(run.object().value(QStringLiteral("revision")).toInt(), 2); // already: no new one
    run = ctl(hit);
    QCOMPARE(run.code, 1); // enforced: denied and banned now
    QCOMPARE(run.object().value(QStringLiteral("allowed")).toBool(), false);
    QVERIFY(!run.object().contains(QStringLiteral("shadow")));

    // The switch is an ordinary audited save.
    auto entries = test::await<std::vector<AuditEntry>>([&](QObject* context, auto done) {
        m_core.audit().latest({}, 50, context, done);
    });
    QVERIFY(entries);
    bool switched = false;
    for (const AuditEntry& entry : *entries)
        switched = switched || (entry.event == QLatin1String("policy") &&
                                entry.detail.contains(QStringLiteral("shadow: 1 -> (none)")));
    QVERIFY(switched);
}

QTEST_GUILESS_MAIN(ShadowModeTest)
#include "tst_ShadowMode.moc"
