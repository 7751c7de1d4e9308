// The Limiter remembers where a user's hits go when their limit override has other window
// lengths than the policy (core/limiter/OverrideTargets.h): the first hit is redirected
// (TG_OVERRIDE, two EVALSHA), the next ones are sent with the override's windows at once (one).
// Every change of the override is seen by the script on the very next hit, which costs one more
// redirect and never decides with the wrong windows: a deleted or ended override falls back to
// the policy, a changed one to its new windows, an exemption to the policy's windows, and an
// edited policy is not paired with the target of its old revision. On a cluster too
// (OverrideTargetsOnCluster). The cache's bound: OverrideTargets alone.

#include "core/limiter/OverrideTargets.h"
#include "tests/support/CoreFixture.h"
#include "tollgate/Overrides.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

namespace {

constexpr qint64 kHour = 3'600'000;

Policy ocrPolicy()
{
    Policy policy;
    policy.action = "ocr";
    policy.windows = {{5, kHour}};
    return policy;
}

} // namespace

class OverrideTargetsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void redirectIsRememberedPerUser();
    void changedOrDeletedOverrideCostsOneRedirect();
    void endedOverrideFallsBackToThePolicy();
    void editedPolicyIsNotPairedWithAnOldTarget();
    void cacheIsBounded();

private:
    bool setLimit(const QByteArray& user, std::vector<WindowLimit> windows, qint64 durationMs = kHour);
    bool setUnlimited(const QByteArray& user);
    bool remove(const QByteArray& user);
    qint64 evalshaCalls();
    // One hit; its limit, and how many EVALSHA it took.
    std::pair<qint64, qint64> hit(const Policy& policy, const QByteArray& user,
                                  AppliedOverride expected);

    CoreFixture m_core;
};

void OverrideTargetsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

// The fixture's Limiter lives for the whole run: every function has users of its own. A first
// hit loads the script (NOSCRIPT, then the call again), before anything is counted.
void OverrideTargetsTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
    QVERIFY(m_core.hit(ocrPolicy(), "warm-up"));
}

bool OverrideTargetsTest::setLimit(const QByteArray& user, std::vector<WindowLimit> windows,
                                   qint64 durationMs)
{
    OverrideRequest request;
    request.user = user;
    request.action = "ocr";
    request.windows = std::move(windows);
    request.kind = request.windows.empty() ? OverrideKind::Unlimited : OverrideKind::Limit;
    request.durationMs = durationMs;
    request.actor = QStringLiteral("ops");
    request.reason = QStringLiteral("trial");
    return m_core.setOverride(request);
}

bool OverrideTargetsTest::setUnlimited(const QByteArray& user)
{
    return setLimit(user, {});
}

bool OverrideTargetsTest::remove(const QByteArray& user)
{
    const OverrideStore store(m_core.client(), m_core.schema());
    const auto removed = test::await<bool>([&](QObject* context, auto done) {
        store.remove(user, "ocr", QStringLiteral("ops"), QStringLiteral("over"), context, done);
    });
    return removed && *removed;
}

qint64 OverrideTargetsTest::evalshaCalls()
{
    qint64 calls = 0;
    for (const Result<Reply>& info : m_core.onEveryPrimary({"INFO", "commandstats"})) {
        if (!info)
            return -1;
        const QByteArray text = info->toBytes();
        const qsizetype at = text.indexOf("cmdstat_evalsha:calls=");
        if (at >= 0)
            calls += text.mid(at + 22, text.indexOf(',', at) - at - 22).toLongLong();
    }
    return calls;
}

std::pair<qint64, qint64> OverrideTargetsTest::hit(const Policy& policy, const QByteArray& user,
                                                   AppliedOverride expected)
{
    const qint64 before = evalshaCalls();
    const auto result = m_core.hit(policy, user);
    if (!result) {
        qWarning() << result.error().toString();
        return {-1, -1};
    }
    if (result->appliedOverride != expected)
        qWarning() << "override" << appliedOverrideName(result->appliedOverride);
    return {result->appliedOverride == expected ? result->limit : -2, evalshaCalls() - before};
}

void OverrideTargetsTest::redirectIsRememberedPerUser()
{
    const Policy policy = ocrPolicy();
    QVERIFY(setLimit("ann", {{10, 2 * kHour}}));
    QVERIFY(setLimit("bob", {{20, 3 * kHour}}));
    using Hit = std::pair<qint64, qint64>;
    QCOMPARE(hit(policy, "ann", AppliedOverride::Limit), Hit(10, 2)); // redirected once
    QCOMPARE(hit(policy, "ann", AppliedOverride::Limit), Hit(10, 1)); // then sent there at once
    QCOMPARE(hit(policy, "bob", AppliedOverride::Limit), Hit(20, 2)); // each user their own
    QCOMPARE(hit(policy, "bob", AppliedOverride::Limit), Hit(20, 1));
    QCOMPARE(hit(policy, "ann", AppliedOverride::Limit), Hit(10, 1));
    QCOMPARE(hit(policy, "cy", AppliedOverride::None), Hit(5, 1)); // no override: the policy
    // They counted in the override's windows: 3 of ann's in her 2 h window.
    const auto peek = m_core.peek(policy, "ann");
    QVERIFY(peek);
    QCOMPARE(peek->countNow, qint64(3));
}

void OverrideTargetsTest::changedOrDeletedOverrideCostsOneRedirect()
{
    const Policy policy = ocrPolicy();
    using Hit = std::pair<qint64, qint64>;
    QVERIFY(setLimit("dan", {{10, 2 * kHour}}));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Limit), Hit(10, 2));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Limit), Hit(10, 1));
    // Other windows: the remembered target is redirected to them, then they are remembered.
    QVERIFY(setLimit("dan", {{30, 4 * kHour}}));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Limit), Hit(30, 2));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Limit), Hit(30, 1));
    // An exemption counts in the policy's windows: back there, and no target kept.
    QVERIFY(setUnlimited("dan"));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Unlimited), Hit(5, 2));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Unlimited), Hit(5, 1));
    // Deleted: the policy decides.
    QVERIFY(setLimit("dan", {{10, 2 * kHour}}));
    QCOMPARE(hit(policy, "dan", AppliedOverride::Limit), Hit(10, 2));
    QVERIFY(remove("dan"));
    QCOMPARE(hit(policy, "dan", AppliedOverride::None), Hit(5, 2));
    QCOMPARE(hit(policy, "dan", AppliedOverride::None), Hit(5, 1));
}

void OverrideTargetsTest::endedOverrideFallsBackToThePolicy()
{
    const Policy policy = ocrPolicy();
    using Hit = std::pair<qint64, qint64>;
    QVERIFY(setLimit("eve", {{10, 2 * kHour}}, 1500));
    QCOMPARE(hit(policy, "eve", AppliedOverride::Limit), Hit(10, 2));
    QCOMPARE(hit(policy, "eve", AppliedOverride::Limit), Hit(10, 1));
    QTRY_VERIFY_WITH_TIMEOUT(m_core.integer({"EXISTS", m_core.schema().overridesKey("eve")}) == 0,
                             10000);
    QCOMPARE(hit(policy, "eve", AppliedOverride::None), Hit(5, 2));
    QCOMPARE(hit(policy, "eve", AppliedOverride::None), Hit(5, 1));
}

// A target carries the rest of the policy it was prepared from (cost, warn, ban...): after an
// edit it is prepared again from the new revision, by the one redirect that costs.
void OverrideTargetsTest::editedPolicyIsNotPairedWithAnOldTarget()
{
    Policy policy = ocrPolicy();
    using Hit = std::pair<qint64, qint64>;
    QVERIFY(setLimit("fay", {{10, 2 * kHour}}));
    QCOMPARE(hit(policy, "fay", AppliedOverride::Limit), Hit(10, 2));
    QCOMPARE(hit(policy, "fay", AppliedOverride::Limit), Hit(10, 1));
    policy.cost = 3;
    policy.revision += 1;
    QCOMPARE(hit(policy, "fay", AppliedOverride::Limit), Hit(10, 2));
    QCOMPARE(hit(policy, "fay", AppliedOverride::Limit), Hit(10, 1));
    const auto peek = m_core.peek(policy, "fay");
    QVERIFY(peek);
    QCOMPARE(peek->countNow, qint64(1 + 1 + 3 + 3)); // the new cost counted from the edit on
}

void OverrideTargetsTest::cacheIsBounded()
{
    const auto base = PreparedHit::prepare(ocrPolicy(), m_core.schema());
    QVERIFY(base);
    const auto target =
        PreparedHit::prepareForOverride(ocrPolicy(), {{10, 2 * kHour}}, KeyLayout(m_core.schema(), false));
    QVERIFY(target);
    OverrideTargets targets(3);
    for (const QByteArray user : {"a", "b", "c", "d"})
        targets.remember(*base, user, *target);
    QCOMPARE(targets.size(), size_t(3));
    QVERIFY(!targets.find(*base, "a")); // the oldest made room
    QVERIFY(targets.find(*base, "d") == *target);
    targets.forget("ocr", "d");
    QVERIFY(!targets.find(*base, "d"));
    // Another prepared policy of the same action (an edit) does not see the entries.
    const auto edited = PreparedHit::prepare(ocrPolicy(), m_core.schema());
    QVERIFY(edited);
    QVERIFY(!targets.find(*edited, "b"));
    for (int i = 0; i < 100; ++i) { // remembered and forgotten over and over: still bounded
        targets.remember(*base, "x", *target);
        targets.forget("ocr", "x");
    }
    QVERIFY(targets.size() <= 3);
}

QTEST_GUILESS_MAIN(OverrideTargetsTest)
#include "tst_OverrideTargets.moc"
