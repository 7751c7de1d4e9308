// Sentinel deployments that cannot be used as given: a master name no sentinel watches, every
// sentinel down, a sentinel that names a replica (a fake one, tests/support/FakeRespServer, in
// front of a real primary and replica). Each gives a clear error within the deadlines, nothing
// hangs, and nothing is written twice; a liar among honest sentinels is routed around.

#include "tests/support/CoreFixture.h"
#include "tests/support/FakeRespServer.h"
#include "tests/support/RedisServer.h"
#include "tollgate/Limiter.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::FakeRespServer;
using tollgate::test::RedisServer;

namespace {

const QString kMaster = QStringLiteral("tollgate");

// A sentinel that names `server` as the primary of every master name.
FakeRespServer::Answer sentinelNaming(const RedisServer* server)
{
    return [server](const QList<QByteArray>& request) -> QByteArray {
        const QByteArray command = request.value(0).toUpper();
        if (command == "SENTINEL") {
            const QByteArray port = QByteArray::number(server->port());
            return "*2\r\n$9\r\n127.0.0.1\r\n$" + QByteArray::number(port.size()) + "\r\n" + port +
                   "\r\n";
        }
        if (command == "SUBSCRIBE")
            return "*3\r\n$9\r\nsubscribe\r\n$14\r\n+switch-master\r\n:1\r\n";
        if (command == "PING")
            return "+PONG\r\n";
        return "+OK\r\n";
    };
}

} // namespace

class SentinelBadInputTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void unknownMasterName();
    void allSentinelsDown();
    void lyingSentinel();
    void liarAmongHonestSentinels();
    void credentialsForBoth();

private:
    // A hit through a fresh client for `url`; the client is kept in m_client.
    Result<HitResult> hitThrough(const QString& url, const QByteArray& user);

    RedisServer m_primary;
    RedisServer m_replica;
    RedisServer m_sentinel; // a real one, watching m_primary as "tollgate"
    std::unique_ptr<Client> m_client;
    Policy m_policy = test::makePolicy("like", 100, 60'000);
};

void SentinelBadInputTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_primary, start());
    TOLLGATE_REQUIRE(m_replica, start({QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"),
                                       QString::number(m_primary.port())}));
    TOLLGATE_REQUIRE(m_sentinel, startSentinel("sentinel monitor tollgate 127.0.0.1 " +
                                               QByteArray::number(m_primary.port()) + " 1\n"));
}

Result<HitResult> SentinelBadInputTest::hitThrough(const QString& url, const QByteArray& user)
{
    m_client.reset();
    auto options = ConnectionOptions::fromUrl(url);
    if (!options)
        return options.error();
    m_client = std::make_unique<Client>(*options);
    m_client->open();
    Limiter limiter(m_client.get(), KeySchema("tg"));
    // The client's own deadlines answer long before this wait gives up.
    return test::await<HitResult>(
        [&](QObject* context, Callback<HitResult> done) {
            limiter.hit(m_policy, user, 1, context, done);
        },
        15'000);
}

void SentinelBadInputTest::unknownMasterName()
{
    const auto hit = hitThrough(
        QStringLiteral("redis+sentinel://127.0.0.1:%1/nosuch?timeout=1000").arg(m_sentinel.port()),
        "u1");
    QVERIFY(!hit);
    // The cause itself, or "not connected ... (reconnecting): <the cause>" once the client is
    // between attempts: the message names it either way.
    QVERIFY2(hit.error().message.contains(QStringLiteral("no master named 'nosuch'")),
             qPrintable(hit.error().message));
    // The right name works through the same sentinel.
    const auto good =
        hitThrough(QStringLiteral("redis+sentinel://127.0.0.1:%1/tollgate?timeout=1000")
                       .arg(m_sentinel.port()),
                   "u1");
    QVERIFY2(good, qPrintable(good ? QString() : good.error().toString()));
    QCOMPARE(good->count, 1);
    QCOMPARE(m_client->node(), QStringLiteral("127.0.0.1:%1").arg(m_primary.port()));
}

void SentinelBadInputTest::allSentinelsDown()
{
    const quint16 a = RedisServer::freePort();
    const quint16 b = RedisServer::freePort();
    const auto hit =
        hitThrough(QStringLiteral("redis+sentinel://:hunter2@127.0.0.1:%1,127.0.0.1:%2/tollgate"
                                  "?timeout=1000&connect_timeout=1000&sentinel_password=hunter3")
                       .arg(a)
                       .arg(b),
                   "u2");
    QVERIFY(!hit);
    const QString message = hit.error().message;
    QVERIFY2(message.contains(QStringLiteral("no sentinel named a primary for 'tollgate'")),
             qPrintable(message));
    QVERIFY2(message.contains(QString::number(a)) && message.contains(QString::number(b)),
             qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("hunter")), qPrintable(message));
    QCOMPARE(m_client->state(), ConnectionState::Reconnecting); // and keeps trying
}

void SentinelBadInputTest::lyingSentinel()
{
    FakeRespServer liar(sentinelNaming(&m_replica));
    QVERIFY(liar.listen());
    const auto hit = hitThrough(
        QStringLiteral("redis+sentinel://127.0.0.1:%1/tollgate?timeout=1000").arg(liar.port()),
        "u3");
    QVERIFY(!hit);
    QVERIFY2(hit.error().message.contains(QStringLiteral("is a slave (ROLE)")),
             qPrintable(hit.error().message));
    // Nothing reached the primary, and the replica was asked nothing but the handshake.
    QCOMPARE(m_primary.command({"EXISTS", "tg:{u3}:like:fw:60000"}), ":0\r\n");
    // The client goes on asking, and failing cleanly, never hanging.
    Limiter limiter(m_client.get(), KeySchema("tg"));
    for (int i = 0; i < 3; ++i) {
        const auto again = test::await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.hit(m_policy, "u3", 1, context, done);
        });
        QVERIFY(!again);
        QVERIFY2(again.error().message.contains(QStringLiteral("is a slave (ROLE)")),
                 qPrintable(again.error().message));
    }
    QCOMPARE(m_primary.command({"EXISTS", "tg:{u3}:like:fw:60000"}), ":0\r\n");
}

void SentinelBadInputTest::liarAmongHonestSentinels()
{
    FakeRespServer liar(sentinelNaming(&m_replica));
    QVERIFY(liar.listen());
    // The liar is asked first; its answer fails the first attempt, and the next attempt asks
    // the honest sentinel first.
    const QString url =
        QStringLiteral("redis+sentinel://127.0.0.1:%1,127.0.0.1:%2/tollgate?timeout=1000")
            .arg(liar.port())
            .arg(m_sentinel.port());
    const auto first = hitThrough(url, "u4");
    QVERIFY(!first);
    QTRY_COMPARE_WITH_TIMEOUT(m_client->state(), ConnectionState::Connected, 10'000);
    QCOMPARE(m_client->node(), QStringLiteral("127.0.0.1:%1").arg(m_primary.port()));
    Limiter limiter(m_client.get(), KeySchema("tg"));
    const auto hit = test::await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(m_policy, "u4", 1, context, done);
    });
    QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
    // Counted once: the failed first hit never reached a primary.
    QCOMPARE(hit->count, 1);
    QCOMPARE(m_primary.command({"GET", "tg:{u4}:like:fw:60000"}), "$1\r\n1\r\n");
}

void SentinelBadInputTest::credentialsForBoth()
{
    // A sentinel with a password of its own, and an ACL user on the primary.
    RedisServer locked;
    TOLLGATE_REQUIRE(locked,
                     startSentinel("requirepass open-sesame\nsentinel monitor tollgate 127.0.0.1 " +
                                   QByteArray::number(m_primary.port()) + " 1\n"));
    QCOMPARE(m_primary.command({"ACL", "SETUSER", "app", "on", ">app-secret", "~*", "+@all"}),
             "+OK\r\n");
    const auto base = [&](const QString& password) {
        return QStringLiteral("redis+sentinel://app:%1@127.0.0.1:%2/tollgate?timeout=1000")
            .arg(password)
            .arg(locked.port());
    };
    // Without the sentinel's password: refused by the sentinel, said so, no password shown.
    auto hit = hitThrough(base(QStringLiteral("app-secret")), "u5");
    QVERIFY(!hit);
    QVERIFY2(hit.error().message.contains(QStringLiteral("auth")), qPrintable(hit.error().message));
    QVERIFY2(!hit.error().message.contains(QStringLiteral("secret")),
             qPrintable(hit.error().message));
    // The sentinel's password right, the server's wrong: refused by the server.
    hit = hitThrough(base(QStringLiteral("wrong-secret")) +
                         QStringLiteral("&sentinel_password=open-sesame"),
                     "u5");
    QVERIFY(!hit);
    QVERIFY2(hit.error().message.contains(QStringLiteral("WRONGPASS")),
             qPrintable(hit.error().message));
    QVERIFY2(!hit.error().message.contains(QStringLiteral("sesame")),
             qPrintable(hit.error().message));
    // Both right.
    hit = hitThrough(base(QStringLiteral("app-secret")) +
                         QStringLiteral("&sentinel_password=open-sesame"),
                     "u5");
    QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
    QCOMPARE(hit->count, 1);
    QVERIFY(m_primary.command({"CLIENT", "LIST"}).contains("user=app"));
}

QTEST_GUILESS_MAIN(SentinelBadInputTest)
#include "tst_SentinelBadInput.moc"
