// core/http/RateLimitHeaders: RateLimit-Policy, RateLimit and Retry-After as
// draft-ietf-httpapi-ratelimit-headers defines them, checked against the shapes of the draft's
// examples ("default";q=100;w=10 / "default";r=50;t=30, two policies burst + daily, a
// partition key as a byte sequence) and against the Structured Field list grammar (RFC 9651).
#include "core/http/RateLimitHeaders.h"

#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;

class RateLimitHeadersTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneWindow();
    void severalWindows();
    void denialHasRetryAfter();
    void banAndPermanentBan();
    void partitionKeyIsAByteSequence();
    void namesAreStructuredStrings_data();
    void namesAreStructuredStrings();
    void httpLines();

private:
    static Policy policy(const QByteArray& action, std::vector<WindowLimit> windows)
    {
        Policy p;
        p.action = action;
        p.windows = std::move(windows);
        return p;
    }
    static HitResult result(bool allowed, qint64 limit, qint64 remaining, qint64 resetMs,
                            qint64 retryAfterMs = 0, Tier tier = Tier::Ok)
    {
        HitResult r;
        r.allowed = allowed;
        r.tier = allowed ? tier : (tier == Tier::Ok ? Tier::Deny : tier);
        r.limit = limit;
        r.remaining = remaining;
        r.resetMs = resetMs;
        r.retryAfterMs = retryAfterMs;
        return r;
    }
    // An sf-list of items whose bare item is a string and whose parameters are integers or
    // byte sequences.
    static bool isStructuredList(const QByteArray& field)
    {
        static const QRegularExpression item(
            QStringLiteral("^\"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\"\\\\])*\""
                           "(?:;[a-z*][a-z0-9_.*-]*=(?:-?[0-9]{1,15}|:[A-Za-z0-9+/=]*:))*$"));
        for (const QByteArray& member : field.split(','))
            if (!item.match(QString::fromLatin1(member.trimmed())).hasMatch())
                return false;
        return !field.isEmpty();
    }
};

void RateLimitHeadersTest::oneWindow()
{
    // The draft's first example: a quota of 100 per 10 s, 50 left, reset in 30 s.
    const auto h =
        rateLimitHeaders(policy("default", {{100, 10'000}}), result(true, 100, 50, 30'000));
    QCOMPARE(h.policy, QByteArray("\"default-10s\";q=100;w=10"));
    QCOMPARE(h.rateLimit, QByteArray("\"default-10s\";r=50;t=30"));
    QVERIFY(h.retryAfter.isEmpty());
    QVERIFY(isStructuredList(h.policy) && isStructuredList(h.rateLimit));
}

void RateLimitHeadersTest::severalWindows()
{
    // The draft's burst + daily pair: one policy item per window, in the policy's order; the
    // RateLimit item is the binding window hit.lua reported (here the daily one).
    const Policy p = policy("api", {{100, 60'000}, {1000, 86'400'000}});
    const auto h = rateLimitHeaders(p, result(true, 1000, 3, 3'600'000));
    QCOMPARE(h.policy, QByteArray("\"api-1m\";q=100;w=60, \"api-1d\";q=1000;w=86400"));
    QCOMPARE(h.rateLimit, QByteArray("\"api-1d\";r=3;t=3600"));
    QVERIFY(isStructuredList(h.policy));
}

void RateLimitHeadersTest::denialHasRetryAfter()
{
    // Seconds are rounded up: a client never retries too early.
    const auto h =
        rateLimitHeaders(policy("like", {{10, 60'000}}), result(false, 10, 0, 42'300, 42'300));
    QCOMPARE(h.rateLimit, QByteArray("\"like-1m\";r=0;t=43"));
    QCOMPARE(h.retryAfter, QByteArray("43"));
}

void RateLimitHeadersTest::banAndPermanentBan()
{
    // Banned: nothing remains until the ban ends, whatever the window holds.
    const Policy p = policy("like", {{10, 60'000}});
    const auto banned = rateLimitHeaders(p, result(false, 10, 7, 5'000, 3'600'000, Tier::Banned));
    QCOMPARE(banned.rateLimit, QByteArray("\"like-1m\";r=0;t=3600"));
    QCOMPARE(banned.retryAfter, QByteArray("3600"));
    // A permanent ban has no time to retry at: no Retry-After at all.
    const auto permanent = rateLimitHeaders(p, result(false, 10, 0, 0, -1, Tier::Banned));
    QVERIFY(permanent.retryAfter.isEmpty());
    QCOMPARE(permanent.rateLimit, QByteArray("\"like-1m\";r=0;t=0"));
}

void RateLimitHeadersTest::partitionKeyIsAByteSequence()
{
    // The draft's partition key example: the bytes "project123".
    const auto h = rateLimitHeaders(policy("api", {{100, 60'000}}), result(true, 100, 99, 60'000),
                                    "project123");
    QCOMPARE(h.policy, QByteArray("\"api-1m\";q=100;w=60;pk=:cHJvamVjdDEyMw==:"));
    QCOMPARE(h.rateLimit, QByteArray("\"api-1m\";r=99;t=60;pk=:cHJvamVjdDEyMw==:"));
    QVERIFY(isStructuredList(h.policy) && isStructuredList(h.rateLimit));
}

void RateLimitHeadersTest::namesAreStructuredStrings_data()
{
    QTest::addColumn<QByteArray>("action");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("plain") << QByteArray("like") << qint64(60'000) << QByteArray("\"like-1m\"");
    QTest::newRow("mixed units") << QByteArray("like") << qint64(5'400'000)
                                 << QByteArray("\"like-1h30m\"");
    QTest::newRow("sub-second") << QByteArray("like") << qint64(500)
                                << QByteArray("\"like-500ms\"");
    QTest::newRow("quote and backslash")
        << QByteArray("a\"b\\c") << qint64(1000) << QByteArray("\"a\\\"b\\\\c-1s\"");
    QTest::newRow("not ASCII") << QByteArray("caf\xc3\xa9") << qint64(1000)
                               << QByteArray("\"caf%C3%A9-1s\"");
}

void RateLimitHeadersTest::namesAreStructuredStrings()
{
    QFETCH(QByteArray, action);
    QFETCH(qint64, windowMs);
    QFETCH(QByteArray, name);
    QCOMPARE(rateLimitPolicyName(action, windowMs), name);
    const auto h = rateLimitHeaders(policy(action, {{5, windowMs}}), result(true, 5, 4, windowMs));
    QVERIFY2(isStructuredList(h.policy), h.policy.constData());
    QVERIFY2(h.policy.endsWith(QByteArray(
                 ";w=" + QByteArray::number(std::max<qint64>(1, (windowMs + 999) / 1000)))),
             h.policy.constData());
}

void RateLimitHeadersTest::httpLines()
{
    const auto h =
        rateLimitHeaders(policy("like", {{10, 60'000}}), result(false, 10, 0, 30'000, 30'000));
    QCOMPARE(h.toHttp(), QByteArray("RateLimit-Policy: \"like-1m\";q=10;w=60\r\n"
                                    "RateLimit: \"like-1m\";r=0;t=30\r\nRetry-After: 30"));
}

QTEST_GUILESS_MAIN(RateLimitHeadersTest)
#include "tst_RateLimitHeaders.moc"
