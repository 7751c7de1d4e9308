// A Sentinel deployment (tests/support/RedisSentinelGroup: a primary, a replica, three
// sentinels) failing over under a steady stream of hits through the library: a SENTINEL
// FAILOVER, then a kill -9 of the primary. Every hit is answered (decided by Redis, or a clean
// error / the failure mode) within its deadline; hits resume on the new primary, which the
// client names; no counter is counted twice and no key is left without a TTL. The time from the
// switch to the first hit decided on the new primary is printed (docs/operators.md quotes it);
// nothing here asserts a time beyond generous "eventually" limits.

#include "tests/support/CoreFixture.h"
#include "tests/support/RedisSentinelGroup.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

using namespace tollgate;
using tollgate::test::RedisSentinelGroup;
using tollgate::test::RedisServer;

namespace {

const int kTimeoutMs = 1000; // the client's command deadline

// What a stream of hits saw.
struct HitLoad
{
    int sent = 0;
    int answered = 0;
    int byRedis = 0;       // decided by Redis
    int failed = 0;        // a clean error (Report)
    int byFailureMode = 0; // answered by the failure mode
    qint64 slowestMs = 0;  // the longest wait for an answer
    qint64 lastCount = 0;  // the counter in the last answer decided by Redis
};

} // namespace

class SentinelFailoverTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void connectsToThePrimary();
    void sentinelFailover();
    void killedPrimary();
    void noKeyWithoutTtl();

private:
    // Hits every 5 ms while `during` runs and until one is decided on a primary other than
    // `oldNode`; qInfo()s the figures. False when a hit stayed unanswered.
    bool hitsThrough(const std::function<void()>& during, const QString& oldNode, HitLoad* load);
    QString endpointOf(int server)
    {
        return m_group.server(server).host() + QLatin1Char(':') +
               QString::number(m_group.server(server).port());
    }

    RedisSentinelGroup m_group;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<Limiter> m_limiter;
    Policy m_policy = test::makePolicy("like", 1'000'000'000, 24 * 3600 * 1000);
};

void SentinelFailoverTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_group, start());
    auto options = ConnectionOptions::fromUrl(
        m_group.url(QStringLiteral("?timeout=%1&connect_timeout=%1").arg(kTimeoutMs)));
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    m_client = std::make_unique<Client>(*options);
    m_client->open();
    QTRY_COMPARE_WITH_TIMEOUT(m_client->state(), ConnectionState::Connected, 10'000);
    m_limiter = std::make_unique<Limiter>(m_client.get(), KeySchema("tg"));
}

void SentinelFailoverTest::connectsToThePrimary()
{
    QCOMPARE(m_group.primaryIndex(), 0);
    QCOMPARE(m_client->node(), endpointOf(0));
    const auto hit = test::await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        m_limiter->hit(m_policy, "alice", 1, context, done);
    });
    QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
    QVERIFY(hit->allowed);
    QCOMPARE(m_group.server(0).command({"EXISTS", "tg:{alice}:like:fw:86400000"}), ":1\r\n");
}

bool SentinelFailoverTest::hitsThrough(const std::function<void()>& during, const QString& oldNode,
                                       HitLoad* load)
{
    QObject context;
    QElapsedTimer clock;
    clock.start();
    qint64 switchedAtMs = -1;
    qint64 resumedAtMs = -1;
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, [&] {
        ++load->sent;
        const qint64 sentAt = clock.elapsed();
        m_limiter->hit(m_policy, "bob", 1, &context, [&, sentAt](Result<HitResult> hit) {
            ++load->answered;
            load->slowestMs = std::max(load->slowestMs, clock.elapsed() - sentAt);
            if (!hit) {
                ++load->failed;
                return;
            }
            if (hit->decidedBy != DecidedBy::Redis) {
                ++load->byFailureMode;
                return;
            }
            ++load->byRedis;
            load->lastCount = hit->count;
            if (switchedAtMs >= 0 && resumedAtMs < 0 && m_client->node() != oldNode)
                resumedAtMs = clock.elapsed();
        });
    });
    timer.start(5);
    QTest::qWait(300);
    switchedAtMs = clock.elapsed();
    during();
    const bool resumed = QTest::qWaitFor([&] { return resumedAtMs >= 0; }, 30'000);
    timer.stop();
    const bool allAnswered = QTest::qWaitFor([&] { return load->answered == load->sent; }, 10'000);
    qInfo("%d hits: %d decided by Redis, %d failed cleanly, %d by the failure mode; slowest "
          "answer %lld ms (deadline %d ms); first hit decided on the new primary %lld ms after "
          "the switch was asked for",
          load->sent, load->byRedis, load->failed, load->byFailureMode, load->slowestMs, kTimeoutMs,
          resumedAtMs - switchedAtMs);
    return resumed && allAnswered;
}

void SentinelFailoverTest::sentinelFailover()
{
    const int oldPrimary = m_group.primaryIndex();
    QVERIFY(oldPrimary >= 0);
    const QString oldNode = endpointOf(oldPrimary);
    QSignalSpy moved(m_client.get(), &Client::nodeChanged);
    HitLoad load;
    bool switched = false;
    QVERIFY(hitsThrough(
        [&] {
            QVERIFY(m_group.failover());
            switched = m_group.waitForPrimaryOtherThan(oldPrimary, true);
        },
        oldNode, &load));
    QVERIFY2(switched, qPrintable(m_group.errorString()));
    const int newPrimary = m_group.primaryIndex();
    QCOMPARE(m_client->node(), endpointOf(newPrimary));
    QTRY_VERIFY(!moved.isEmpty());
    QCOMPARE(moved.last().at(0).toString(), endpointOf(newPrimary));
    // Never counted twice: the counter holds at most one unit per hit Redis decided (a hit
    // acknowledged by the old primary just before the switch may be lost, never repeated).
    QVERIFY2(
        load.lastCount <= load.byRedis,
        qPrintable(QStringLiteral("count %1 after %2 hits").arg(load.lastCount).arg(load.byRedis)));
    QVERIFY(load.byRedis > 0);
}

void SentinelFailoverTest::killedPrimary()
{
    // The failure mode answers for the hits that find no primary: none is left without one.
    m_limiter->setFailureMode(FailureMode::FailClosed);
    // The sentinels start no second failover of a master within 2 x failover-timeout (6 s) of
    // the last: wait that out, so what is measured is the kill alone.
    QTest::qWait(6000);
    const int oldPrimary = m_group.primaryIndex();
    QVERIFY(oldPrimary >= 0);
    HitLoad load;
    bool switched = false;
    QVERIFY(hitsThrough(
        [&] {
            m_group.server(oldPrimary).kill();
            switched = m_group.waitForPrimaryOtherThan(oldPrimary);
        },
        endpointOf(oldPrimary), &load));
    QVERIFY2(switched, qPrintable(m_group.errorString()));
    QCOMPARE(load.failed, 0);
    QCOMPARE(m_client->node(), endpointOf(m_group.primaryIndex()));
    // A ban written now lands on the new primary, with its TTL.
    Moderation moderation(m_client.get(), KeySchema("tg"));
    BanRequest ban{"mallory",      "like", QStringLiteral("test"), QStringLiteral("failover test"),
                   10 * 60 * 1000, 0};
    const auto banned = test::await<BanInfo>(
        [&](QObject* context, Callback<BanInfo> done) { moderation.ban(ban, context, done); });
    QVERIFY2(banned, qPrintable(banned ? QString() : banned.error().toString()));
}

void SentinelFailoverTest::noKeyWithoutTtl()
{
    // A cursor SCAN from the test (never inside Lua): every key of a user (counters, bans, the
    // user's audit stream) has its TTL.
    RedisServer& primary = m_group.server(m_group.primaryIndex());
    QByteArray cursor = "0";
    int checked = 0;
    do {
        const QByteArray reply =
            primary.command({"SCAN", cursor, "MATCH", "tg:{*", "COUNT", "1000"});
        const QList<QByteArray> lines = reply.split('\n');
        QVERIFY(lines.size() >= 4);
        cursor = lines[2].trimmed();
        for (int i = 5; i < lines.size(); i += 2) {
            const QByteArray key = lines[i].trimmed();
            if (key.isEmpty())
                continue;
            const QByteArray ttl = primary.command({"PTTL", key});
            QVERIFY2(ttl.startsWith(':') && ttl.mid(1).trimmed().toLongLong() > 0,
                     qPrintable(QString::fromUtf8(key + " PTTL " + ttl)));
            ++checked;
        }
    } while (cursor != "0");
    QVERIFY(checked >= 3); // bob's counter, mallory's ban and audit stream at least
}

QTEST_GUILESS_MAIN(SentinelFailoverTest)
#include "tst_SentinelFailover.moc"
