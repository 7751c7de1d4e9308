// The library through a real nutcracker (Twemproxy 0.5): a redis+twemproxy:// client sends only
// what the proxy forwards, keeps each script's keys on one backend (hash_tag "{}"), recovers
// NOSCRIPT by EVAL, refuses what needs a whole server without the pool's backends and does it
// on each backend with them; and under load, through two ejections of a paused backend, every
// hit is answered and no key of Tollgate's is left without a TTL, where the naive INCR/EXPIRE
// counter of the same run leaves some.

#include "core/client/Scan.h"
#include "core/client/TwemproxyBackends.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/NaiveCounterLoad.h"
#include "tests/support/Twemproxy.h"
#include "tollgate/RefusalCache.h"

#include "tests/support/ResultText.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::makePolicy;
using tollgate::test::NaiveCounterLoad;
using tollgate::test::Twemproxy;

class TwemproxyLimiterTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void urlNamesThePool();
    void policyHitPeekBanThroughTheProxy();
    void aUsersKeysStayOnOneBackend();
    void noscriptIsCuredByEval();
    void refusedCommandsAreNeverSent();
    void streamReadsGoAsScripts();
    void wholeServerWorkNeedsTheBackends();
    void refusalCacheHearsEveryBackend();
    void ttlsSurviveEjectionsUnderLoad();

private:
    std::unique_ptr<Client> connect(const QString& url);
    Result<Reply> run(Client* client, const Command& command);

    Twemproxy m_pool;
    std::unique_ptr<Client> m_client; // with the backends
    KeySchema m_schema{QByteArrayLiteral("tg")};
};

std::unique_ptr<Client> TwemproxyLimiterTest::connect(const QString& url)
{
    auto options = ConnectionOptions::fromUrl(url);
    if (!options) {
        qWarning() << options.error().message;
        return nullptr;
    }
    auto client = std::make_unique<Client>(*options);
    client->open();
    if (!QTest::qWaitFor([&] { return client->state() == ConnectionState::Connected; }, 10000))
        return nullptr;
    return client;
}

Result<Reply> TwemproxyLimiterTest::run(Client* client, const Command& command)
{
    return await<Reply>([&](QObject* context, Callback<Reply> done) {
        client->execute(command, context, std::move(done));
    });
}

void TwemproxyLimiterTest::initTestCase()
{
    QVERIFY2(m_pool.start(), qPrintable(m_pool.errorString()));
    m_client = connect(QStringLiteral("redis+twemproxy://") + m_pool.address() +
                       QStringLiteral("?backends=") + m_pool.backendList());
    QVERIFY(m_client);
    QVERIFY(m_client->isTwemproxy());
    QVERIFY(m_client->keysInOneSlot());
}

void TwemproxyLimiterTest::urlNamesThePool()
{
    auto fromConfig = ConnectionOptions::fromUrl(
        QStringLiteral("redis+twemproxy://") + m_pool.address() + QStringLiteral("?config=") +
        m_pool.configPath() + QStringLiteral("&pool=") + m_pool.poolName());
    QVERIFY2(fromConfig, tollgate::test::whyNot(fromConfig).constData());
    QCOMPARE(int(fromConfig->twemproxy.backends.size()), m_pool.backendCount());
    QCOMPARE(fromConfig->twemproxy.backends[1].port, m_pool.backend(1).port());
    QVERIFY(fromConfig->clientName.isEmpty()); // no CLIENT SETNAME in the handshake

    // A pool without hash_tag "{}" is refused, naming what to change.
    QTemporaryDir dir;
    QFile yaml(dir.filePath(QStringLiteral("plain.yml")));
    QVERIFY(yaml.open(QIODevice::WriteOnly));
    yaml.write("plain:\n  listen: 127.0.0.1:1\n  redis: true\n  servers:\n"
               "    - 127.0.0.1:2:1 a\n");
    yaml.close();
    auto plain = ConnectionOptions::fromUrl(QStringLiteral("redis+twemproxy://127.0.0.1:1?config=") +
                                            yaml.fileName() + QStringLiteral("&pool=plain"));
    QVERIFY(!plain);
    QVERIFY2(plain.error().message.contains(QStringLiteral("hash_tag: \"{}\"")),
             qPrintable(plain.error().message));

    for (const QString& bad : {QStringLiteral("redis+twemproxy://127.0.0.1:1/2"),
                               QStringLiteral("redis+twemproxy://alice:pw@127.0.0.1:1"),
                               QStringLiteral("redis+twemproxy://127.0.0.1:1?backends=nohost"),
                               QStringLiteral("redis+twemproxy://127.0.0.1:1?pool=x"),
                               QStringLiteral("redis://127.0.0.1:1?backends=127.0.0.1:2")})
        QVERIFY2(!ConnectionOptions::fromUrl(bad), qPrintable(bad));
}

void TwemproxyLimiterTest::policyHitPeekBanThroughTheProxy()
{
    PolicyStore store(m_client.get(), m_schema);
    Limiter limiter(m_client.get(), m_schema);
    const Policy policy = makePolicy("spam", 3, 60'000);
    auto saved = await<qint64>([&](QObject* context, Callback<qint64> done) {
        store.save(policy, QStringLiteral("test"), context, std::move(done));
    });
    QVERIFY2(saved, tollgate::test::whyNot(saved).constData());

    for (int i = 0; i < 3; ++i) {
        auto hit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.hit(policy, "alice", 0, context, std::move(done));
        });
        QVERIFY2(hit, tollgate::test::whyNot(hit).constData());
        QVERIFY(hit->allowed);
        QCOMPARE(hit->decidedBy, DecidedBy::Redis);
    }
    // A peek (EVALSHA_RO, sent as EVALSHA) says "denied" and counts nothing.
    for (int i = 0; i < 2; ++i) {
        auto peek = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.peek(policy, "alice", 0, context, std::move(done));
        });
        QVERIFY2(peek, tollgate::test::whyNot(peek).constData());
        QVERIFY(!peek->allowed);
    }
    auto denied = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(policy, "alice", 0, context, std::move(done));
    });
    QVERIFY(denied && !denied->allowed);

    Moderation moderation(m_client.get(), m_schema);
    BanRequest request;
    request.user = "bob";
    request.action = "spam";
    request.actor = QStringLiteral("test");
    request.reason = QStringLiteral("spam");
    request.durationMs = 60'000;
    auto banned = await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        moderation.ban(request, context, std::move(done));
    });
    QVERIFY2(banned, tollgate::test::whyNot(banned).constData());
    auto bobHit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(policy, "bob", 0, context, std::move(done));
    });
    QVERIFY(bobHit && !bobHit->allowed);

    // The user's audit stream, read from the backends (the proxy forwards no XREVRANGE).
    AuditLog audit(m_client.get(), m_schema);
    auto entries = await<std::vector<AuditEntry>>(
        [&](QObject* context, Callback<std::vector<AuditEntry>> done) {
            audit.latest("bob", 10, context, std::move(done));
        });
    QVERIFY2(entries, tollgate::test::whyNot(entries).constData());
    QCOMPARE(int(entries->size()), 1);
    QCOMPARE(entries->front().event, QStringLiteral("ban"));
}

void TwemproxyLimiterTest::aUsersKeysStayOnOneBackend()
{
    // The policy and its index and history under "{:}"; alice's counter and bob's ban and
    // audit stream beside their other keys.
    const int policyHome = m_pool.backendHolding("tg:{:}:policy:spam");
    QVERIFY(policyHome >= 0);
    QCOMPARE(m_pool.backendHolding("tg:{:}:policies"), policyHome);
    QCOMPARE(m_pool.backendHolding("tg:{:}:audit"), policyHome);
    const int bob = m_pool.backendHolding("tg:{bob}:spam:ban");
    QVERIFY(bob >= 0);
    QCOMPARE(m_pool.backendHolding("tg:{bob}:audit"), bob);
    // No global audit stream: each script's keys are under one tag.
    QCOMPARE(m_pool.backendHolding("tg:audit"), -1);
}

void TwemproxyLimiterTest::noscriptIsCuredByEval()
{
    for (int i = 0; i < m_pool.backendCount(); ++i)
        QCOMPARE(m_pool.backend(i).command({"SCRIPT", "FLUSH"}), QByteArray("+OK\r\n"));
    Limiter limiter(m_client.get(), m_schema);
    auto hit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(makePolicy("fresh", 5, 60'000), "carol", 0, context, std::move(done));
    });
    QVERIFY2(hit, tollgate::test::whyNot(hit).constData());
    QVERIFY(hit->allowed);
}

void TwemproxyLimiterTest::refusedCommandsAreNeverSent()
{
    for (const Command& command : {Command{"INFO"}, Command{"SCAN", "0"},
                                   Command{"CLIENT", "SETNAME", "x"},
                                   Command{"EVAL", "return 1", "0"}}) {
        auto refused = run(m_client.get(), command);
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
        QVERIFY2(refused.error().message.contains(QStringLiteral("Twemproxy")),
                 qPrintable(refused.error().message));
    }
    // A batch with one refused command fails that entry only; the connection stays up.
    auto replies = await<std::vector<Result<Reply>>>(
        [&](QObject* context, auto done) {
            m_client->executeBatch({{"SET", "tg:{x}:a", "1"}, {"INFO"}, {"GET", "tg:{x}:a"}},
                                   context,
                                   [done](std::vector<Result<Reply>> r) { done(std::move(r)); });
        });
    QVERIFY(replies);
    QVERIFY((*replies)[0]);
    QVERIFY(!(*replies)[1]);
    QVERIFY((*replies)[2]);
    QCOMPARE((*replies)[2]->toBytes(), QByteArray("1"));
    QCOMPARE(m_client->state(), ConnectionState::Connected);
    QVERIFY(run(m_client.get(), {"PING"}));
}

// The proxy forwards no stream command; the key browser's reads of a stream (its length, its
// newest entries) go as a script on the key's backend, with the same replies.
void TwemproxyLimiterTest::streamReadsGoAsScripts()
{
    const QByteArray key = "tg:{streamer}:audit";
    for (const QByteArray field : {"first", "second"}) {
        auto added =
            run(m_client.get(),
                {"EVAL", "return redis.call('XADD', KEYS[1], '*', 'f', ARGV[1])", "1", key, field});
        QVERIFY2(added, qPrintable(added ? QString() : added.error().message));
    }
    auto length = run(m_client.get(), {"XLEN", key});
    QVERIFY2(length, qPrintable(length ? QString() : length.error().message));
    QCOMPARE(length->toInteger(), 2);
    auto newest = run(m_client.get(), {"XREVRANGE", key, "+", "-", "COUNT", "1"});
    QVERIFY2(newest, qPrintable(newest ? QString() : newest.error().message));
    QCOMPARE(newest->elements.size(), size_t(1));
    const Reply& entry = newest->elements.front();
    QCOMPARE(entry.elements.size(), size_t(2));
    QCOMPARE(entry.elements[1].elements[1].toBytes(), QByteArray("second"));
    auto oldest = run(m_client.get(), {"XRANGE", key, "-", "+", "COUNT", "1"});
    QVERIFY2(oldest, qPrintable(oldest ? QString() : oldest.error().message));
    QCOMPARE(oldest->elements.front().elements[1].elements[1].toBytes(), QByteArray("first"));
    QCOMPARE(m_client->state(), ConnectionState::Connected);
}

void TwemproxyLimiterTest::wholeServerWorkNeedsTheBackends()
{
    auto bare = connect(QStringLiteral("redis+twemproxy://") + m_pool.address());
    QVERIFY(bare);
    auto scanned = await<QList<QByteArray>>([&](QObject* context, auto done) {
        ScanOptions scan;
        scan.pattern = "tg:*";
        collectKeys(bare.get(), scan, context, std::move(done));
    });
    QVERIFY(!scanned);
    QVERIFY2(scanned.error().message.contains(QStringLiteral("backends=")),
             qPrintable(scanned.error().message));

    // With them, SCAN reaches every backend and INFO answers once per backend.
    auto keys = await<QList<QByteArray>>([&](QObject* context, auto done) {
        ScanOptions scan;
        scan.pattern = "tg:*";
        collectKeys(m_client.get(), scan, context, std::move(done));
    });
    QVERIFY2(keys, tollgate::test::whyNot(keys).constData());
    QVERIFY(keys->contains("tg:{:}:policy:spam"));
    QVERIFY(keys->contains("tg:{bob}:spam:ban"));
    auto infos = await<std::vector<Result<Reply>>>([&](QObject* context, auto done) {
        m_client->executeOnEveryPrimary({"INFO", "server"}, context,
                                        [done](std::vector<Result<Reply>> r) { done(std::move(r)); });
    });
    QVERIFY(infos);
    QCOMPARE(int(infos->size()), m_pool.backendCount());
    for (const auto& info : *infos)
        QVERIFY(info && info->toBytes().contains("redis_version"));
}

void TwemproxyLimiterTest::refusalCacheHearsEveryBackend()
{
    // A refusal answered from memory is lifted by an unban, whose event is published on the
    // backend of the user's keys: the feed listens on every backend (the proxy forwards no
    // SUBSCRIBE).
    auto cache = std::make_shared<RefusalCache>();
    RefusalCacheFeed feed(m_client->options(), m_schema, cache);
    feed.start();
    QTRY_VERIFY_WITH_TIMEOUT(feed.isSubscribed(), 10000);
    Limiter limiter(m_client.get(), m_schema);
    limiter.setRefusalCache(cache);
    Moderation moderation(m_client.get(), m_schema);
    const Policy policy = makePolicy("spam", 3, 60'000);
    for (int n = 0; n < 6; ++n) {
        const QByteArray user = "cached" + QByteArray::number(n); // users on every backend
        BanRequest request{user, "spam", QStringLiteral("test"), QStringLiteral("r"), 60'000, 0};
        QVERIFY(await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
            moderation.ban(request, context, std::move(done));
        }));
        auto refused = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.hit(policy, user, 0, context, std::move(done));
        });
        QVERIFY(refused && !refused->allowed);
        QVERIFY(cache->answer(policy, user, 0)); // remembered
        QVERIFY(await<qint64>([&](QObject* context, Callback<qint64> done) {
            moderation.unban(user, "spam", QStringLiteral("test"), QStringLiteral("r"), context,
                             std::move(done));
        }));
        QTRY_VERIFY_WITH_TIMEOUT(!cache->answer(policy, user, 0), 5000);
    }
}

void TwemproxyLimiterTest::ttlsSurviveEjectionsUnderLoad()
{
    Limiter limiter(m_client.get(), m_schema);
    limiter.setFailureMode(FailureMode::FailOpen); // hits are answered while the proxy errors
    const Policy minute = makePolicy("like", 1000, 1000);
    Policy sliding = makePolicy("comment", 1000, 1000, Algorithm::SlidingWindow);

    NaiveCounterLoad naive(m_pool.host(), m_pool.port(), "naive:");
    naive.start();
    qint64 sent = 0;
    qint64 answered = 0;
    qint64 fromRedis = 0;
    QObject context;
    bool loading = true;
    // At most 64 hits in flight, each answer sending the next: users 0..199, two policies.
    std::function<void()> next = [&] {
        if (!loading)
            return;
        const QByteArray user = "u" + QByteArray::number(sent % 200);
        const Policy& policy = sent % 2 ? sliding : minute;
        ++sent;
        limiter.hit(policy, user, 0, &context, [&](Result<HitResult> hit) {
            ++answered;
            if (hit && hit->decidedBy == DecidedBy::Redis)
                ++fromRedis;
            next();
        });
    };
    for (int i = 0; i < 64; ++i)
        next();
    const qint64 ejectionsBefore = m_pool.ejections();
    for (int round = 0; round < 2; ++round) {
        QTest::qWait(1000);
        QVERIFY(m_pool.pause(0));
        QTest::qWait(2500);
        QVERIFY(m_pool.resume(0));
    }
    QTest::qWait(2000);
    loading = false;
    naive.stop();
    // Nothing hangs: every hit sent is answered (the last within the command deadline).
    QTRY_COMPARE_WITH_TIMEOUT(answered, sent, 15000);
    const qint64 ejections = m_pool.ejections() - ejectionsBefore;
    const qint64 lostNaive = m_pool.keysWithoutTtl(naive.pattern());
    const qint64 lostTollgate = m_pool.keysWithoutTtl("tg:{u*");
    qInfo() << sent << "hits," << fromRedis << "decided by Redis," << ejections << "ejections;"
            << "keys without TTL: naive" << lostNaive << "(of" << naive.operations()
            << "operations), Tollgate" << lostTollgate;
    QVERIFY2(ejections >= 2, "the backend was not ejected twice");
    QVERIFY(fromRedis > sent / 2);
    QCOMPARE(lostTollgate, 0);
    QVERIFY2(lostNaive > 0, "the naive control left no key without a TTL: the test cannot fail");
}

QTEST_GUILESS_MAIN(TwemproxyLimiterTest)
#include "tst_TwemproxyLimiter.moc"
