// The tollgated registry (service_announce.lua, core/registry/ServiceRegistry) on a real server:
// instances announced, listed and withdrawn; stale after 15 s, pruned after 10 minutes (old
// scores written directly instead of waiting); both keys always with a TTL; bad arguments
// refused with nothing written; broken entries named in `unreadable`. Registered a second time
// on a three-primary cluster (tests/CMakeLists.txt), where both keys share the {:} slot.

#include "core/registry/ServiceRegistry.h"
#include "core/scripts/ScriptLibrary.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;

class ServiceRegistryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void payloadRoundTrips();
    void announceListWithdraw();
    void silentInstanceGoesStale();
    void entriesOlderThanTenMinutesArePruned();
    void bothKeysAlwaysHaveATtl();
    void badArgumentsWriteNothing_data();
    void badArgumentsWriteNothing();
    void clientRefusesBadInput();
    void keyOfAnotherTypeIsCorrupt();
    void brokenEntriesAreUnreadable();

private:
    Result<qint64> announce(const ServiceInstance& instance);
    Result<Unit> withdraw(const QByteArray& id);
    Result<ServiceList> list();
    // service_announce.lua by EVAL, keys and arguments as given.
    Result<Reply> eval(const Command& keys, const Command& args);
    QByteArray hashKey() const { return m_core.schema().servicesKey(); }
    QByteArray seenKey() const { return m_core.schema().servicesSeenKey(); }

    CoreFixture m_core;
};

namespace {

ServiceInstance instance(const QByteArray& id, const QString& host)
{
    ServiceInstance s;
    s.id = id;
    s.host = host;
    s.pid = 4242;
    s.version = QStringLiteral("0.9.0");
    s.configFile = QStringLiteral("/etc/tollgate/tollgated.yaml");
    s.configDigest = QStringLiteral("9f3ac01e77b2");
    s.grpcAddress = QStringLiteral("127.0.0.1:8081");
    s.startedMs = 1'700'000'000'000;
    s.decisionsPerSecond = 812.5;
    s.decisionsTotal = 123'456'789'012;
    s.cachedRefusals = 17;
    s.cacheBytes = 4096;
    s.cacheHitsTotal = 99;
    s.ready = true;
    s.lastError = QStringLiteral("redis: timeout \"42\"\nreconnected");
    return s;
}

QStringList ids(const ServiceList& list)
{
    QStringList out;
    for (const ServiceInstance& s : list.instances)
        out << QString::fromUtf8(s.id);
    return out;
}

} // namespace

void ServiceRegistryTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void ServiceRegistryTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

Result<qint64> ServiceRegistryTest::announce(const ServiceInstance& instance)
{
    return await<qint64>([&](QObject* context, Callback<qint64> done) {
        ServiceRegistry(m_core.client(), m_core.schema()).announce(instance, context, done);
    });
}

Result<Unit> ServiceRegistryTest::withdraw(const QByteArray& id)
{
    return await<Unit>([&](QObject* context, Callback<Unit> done) {
        ServiceRegistry(m_core.client(), m_core.schema()).withdraw(id, context, done);
    });
}

Result<ServiceList> ServiceRegistryTest::list()
{
    return await<ServiceList>([&](QObject* context, Callback<ServiceList> done) {
        ServiceRegistry(m_core.client(), m_core.schema()).list(context, done);
    });
}

Result<Reply> ServiceRegistryTest::eval(const Command& keys, const Command& args)
{
    const ScriptInfo* script = ScriptLibrary::instance().find(QStringLiteral("service_announce"));
    if (!script)
        return Error{ErrorKind::NotFound, QStringLiteral("no service_announce.lua")};
    return m_core.inspect(Command{"EVAL", script->source, QByteArray::number(keys.size())} + keys +
                          args);
}

void ServiceRegistryTest::payloadRoundTrips()
{
    const ServiceInstance sent = instance("web-1:4242:9f3ac01e", QStringLiteral("web-1"));
    const auto back = ServiceInstance::fromJson(sent.id, sent.toJson());
    QVERIFY2(back, qPrintable(back ? QString() : back.error().message));
    QCOMPARE(back->id, sent.id);
    QCOMPARE(back->host, sent.host);
    QCOMPARE(back->pid, sent.pid);
    QCOMPARE(back->version, sent.version);
    QCOMPARE(back->configFile, sent.configFile);
    QCOMPARE(back->configDigest, sent.configDigest);
    QCOMPARE(back->grpcAddress, sent.grpcAddress);
    QCOMPARE(back->httpAddress, QString());
    QCOMPARE(back->startedMs, sent.startedMs);
    QCOMPARE(back->decisionsPerSecond, sent.decisionsPerSecond);
    QCOMPARE(back->decisionsTotal, sent.decisionsTotal);
    QCOMPARE(back->cachedRefusals, sent.cachedRefusals);
    QCOMPARE(back->cacheBytes, sent.cacheBytes);
    QCOMPARE(back->cacheHitsTotal, sent.cacheHitsTotal);
    QCOMPARE(back->ready, true);
    QCOMPARE(back->lastError, sent.lastError);
    // Missing fields take their defaults, unknown ones are ignored: versions mix.
    const auto sparse = ServiceInstance::fromJson("x", R"({"host":"h","future_field":[1,2]})");
    QVERIFY(sparse);
    QCOMPARE(sparse->host, QStringLiteral("h"));
    QCOMPARE(sparse->ready, false);
}

void ServiceRegistryTest::announceListWithdraw()
{
    const qint64 before = m_core.serverNowMs();
    const auto first = announce(instance("web-2:7:00000002", QStringLiteral("web-2")));
    QVERIFY2(first, qPrintable(first ? QString() : first.error().toString()));
    QVERIFY(*first >= before);
    QVERIFY(announce(instance("web-1:9:00000001", QStringLiteral("web-1"))));
    QVERIFY(announce(instance("web-1:3:00000003", QStringLiteral("web-1"))));

    auto listed = list();
    QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().toString()));
    // By host, then id.
    QCOMPARE(ids(*listed),
             (QStringList{QStringLiteral("web-1:3:00000003"), QStringLiteral("web-1:9:00000001"),
                          QStringLiteral("web-2:7:00000002")}));
    QVERIFY(listed->unreadable.empty());
    QVERIFY(listed->serverNowMs >= *first);
    for (const ServiceInstance& s : listed->instances) {
        QVERIFY(s.lastSeenMs >= before && s.lastSeenMs <= listed->serverNowMs);
        QVERIFY(!s.isStale(listed->serverNowMs));
        QCOMPARE(s.decisionsTotal, qint64(123'456'789'012));
    }

    QVERIFY(withdraw("web-1:9:00000001"));
    QVERIFY(withdraw("never-announced")); // no error
    listed = list();
    QVERIFY(listed);
    QCOMPARE(ids(*listed),
             (QStringList{QStringLiteral("web-1:3:00000003"), QStringLiteral("web-2:7:00000002")}));
    QCOMPARE(m_core.integer({"HLEN", hashKey()}), qint64(2));
    QCOMPARE(m_core.integer({"ZCARD", seenKey()}), qint64(2));
}

void ServiceRegistryTest::silentInstanceGoesStale()
{
    QVERIFY(announce(instance("quiet:1:0000000a", QStringLiteral("quiet"))));
    QVERIFY(announce(instance("busy:1:0000000b", QStringLiteral("busy"))));
    // As if "quiet" had not announced for 16 s (and the other just now).
    const qint64 now = m_core.serverNowMs();
    QVERIFY(
        m_core.inspect({"ZADD", seenKey(), QByteArray::number(now - 16'000), "quiet:1:0000000a"}));
    const auto listed = list();
    QVERIFY(listed);
    QCOMPARE(listed->instances.size(), size_t(2));
    QCOMPARE(listed->instances[0].host, QStringLiteral("busy"));
    QVERIFY(!listed->instances[0].isStale(listed->serverNowMs));
    QCOMPARE(listed->instances[1].lastSeenMs, now - 16'000);
    QVERIFY(listed->instances[1].isStale(listed->serverNowMs));
    // The threshold itself: 15 s is still live, a millisecond more is stale.
    ServiceInstance edge;
    edge.lastSeenMs = 1'000'000;
    QVERIFY(!edge.isStale(1'000'000 + ServiceInstance::kStaleMs));
    QVERIFY(edge.isStale(1'000'000 + ServiceInstance::kStaleMs + 1));
}

void ServiceRegistryTest::entriesOlderThanTenMinutesArePruned()
{
    const qint64 now = m_core.serverNowMs();
    // 150 instances gone 11 minutes ago, one 9 minutes ago: a call drops at most 100.
    Command hset{"HSET", hashKey()};
    Command zadd{"ZADD", seenKey()};
    for (int i = 0; i < 150; ++i) {
        const QByteArray id = "gone:" + QByteArray::number(i);
        hset << id << R"({"host":"gone"})";
        zadd << QByteArray::number(now - 660'000) << id;
    }
    hset << "recent:1:1"
         << R"({"host":"recent"})";
    zadd << QByteArray::number(now - 540'000) << "recent:1:1";
    QVERIFY(m_core.inspect(hset));
    QVERIFY(m_core.inspect(zadd));

    QVERIFY(announce(instance("new:1:00000001", QStringLiteral("new"))));
    QCOMPARE(m_core.integer({"ZCARD", seenKey()}), qint64(52)); // 50 gone, recent, new
    QCOMPARE(m_core.integer({"HLEN", hashKey()}), qint64(52));
    QVERIFY(withdraw("new:1:00000001")); // a withdraw prunes too
    QCOMPARE(m_core.integer({"ZCARD", seenKey()}), qint64(1));
    QCOMPARE(m_core.integer({"HLEN", hashKey()}), qint64(1));
    const auto listed = list();
    QVERIFY(listed);
    QCOMPARE(ids(*listed), QStringList{QStringLiteral("recent:1:1")});
    QVERIFY(listed->unreadable.empty());
}

void ServiceRegistryTest::bothKeysAlwaysHaveATtl()
{
    QVERIFY(announce(instance("a:1:00000001", QStringLiteral("a"))));
    for (const QByteArray& key : {hashKey(), seenKey()}) {
        const qint64 ttl = m_core.pttl(key);
        QVERIFY2(ttl > 590'000 && ttl <= 600'000, qPrintable(QString::number(ttl)));
    }
    // A TTL someone took away comes back with the next call, withdraw included.
    QVERIFY(m_core.inspect({"PERSIST", hashKey()}));
    QVERIFY(m_core.inspect({"PERSIST", seenKey()}));
    QVERIFY(announce(instance("b:1:00000002", QStringLiteral("b"))));
    QVERIFY(m_core.inspect({"PERSIST", hashKey()}));
    QVERIFY(withdraw("b:1:00000002"));
    for (const QByteArray& key : {hashKey(), seenKey()})
        QVERIFY(m_core.pttl(key) > 590'000);
    // The last one leaving removes the keys.
    QVERIFY(withdraw("a:1:00000001"));
    QCOMPARE(m_core.pttl(hashKey()), qint64(-2));
    QCOMPARE(m_core.pttl(seenKey()), qint64(-2));
}

void ServiceRegistryTest::badArgumentsWriteNothing_data()
{
    QTest::addColumn<Command>("keys");
    QTest::addColumn<Command>("args");
    QTest::addColumn<QString>("message");
    const KeySchema s;
    const Command keys{s.servicesKey(), s.servicesSeenKey()};
    const QByteArray ok = R"({"host":"h"})";
    QTest::newRow("empty id") << keys << Command{"announce", "", ok} << QStringLiteral("1 to 256");
    QTest::newRow("id of 257 bytes")
        << keys << Command{"announce", QByteArray(257, 'x'), ok} << QStringLiteral("not 257");
    QTest::newRow("withdraw, empty id")
        << keys << Command{"withdraw", ""} << QStringLiteral("1 to 256");
    QTest::newRow("payload over 64 KiB")
        << keys << Command{"announce", "h:1:1", "{\"a\":\"" + QByteArray(65'529, 'x') + "\"}"}
        << QStringLiteral("65537 bytes");
    QTest::newRow("payload no JSON")
        << keys << Command{"announce", "h:1:1", "{host"} << QStringLiteral("JSON object");
    QTest::newRow("payload a JSON array")
        << keys << Command{"announce", "h:1:1", "[1]"} << QStringLiteral("JSON object");
    QTest::newRow("payload empty")
        << keys << Command{"announce", "h:1:1", ""} << QStringLiteral("JSON object");
    QTest::newRow("no payload") << keys << Command{"announce", "h:1:1"}
                                << QStringLiteral("announce");
    QTest::newRow("withdraw with a payload")
        << keys << Command{"withdraw", "h:1:1", ok} << QStringLiteral("withdraw");
    QTest::newRow("unknown mode") << keys << Command{"register", "h:1:1", ok}
                                  << QStringLiteral("announce");
    QTest::newRow("other keys") << Command{"tg:{:}:services", "tg:{:}:seen"}
                                << Command{"announce", "h:1:1", ok} << QStringLiteral("2 keys");
    QTest::newRow("one key") << Command{s.servicesKey()} << Command{"announce", "h:1:1", ok}
                             << QStringLiteral("2 keys");
}

void ServiceRegistryTest::badArgumentsWriteNothing()
{
    QFETCH(Command, keys);
    QFETCH(Command, args);
    QFETCH(QString, message);
    const auto reply = eval(keys, args);
    QVERIFY(!reply);
    QCOMPARE(reply.error().kind, ErrorKind::InvalidInput);
    QVERIFY2(reply.error().message.contains(message), qPrintable(reply.error().message));
    QCOMPARE(m_core.dbsize(), qint64(0));
}

void ServiceRegistryTest::clientRefusesBadInput()
{
    // Refused before anything is sent, with the same limits as the script's.
    const auto empty = announce(instance("", QStringLiteral("h")));
    QVERIFY(!empty);
    QCOMPARE(empty.error().kind, ErrorKind::InvalidInput);
    const auto longId = withdraw(QByteArray(ServiceRegistry::kMaxIdBytes + 1, 'x'));
    QVERIFY(!longId);
    QCOMPARE(longId.error().kind, ErrorKind::InvalidInput);
    ServiceInstance huge = instance("h:1:1", QStringLiteral("h"));
    huge.lastError = QString(ServiceRegistry::kMaxPayloadBytes, QLatin1Char('e'));
    const auto big = announce(huge);
    QVERIFY(!big);
    QCOMPARE(big.error().kind, ErrorKind::InvalidInput);
    QVERIFY2(big.error().message.contains(QStringLiteral("at most 65536")),
             qPrintable(big.error().message));
    QCOMPARE(m_core.dbsize(), qint64(0));
    // An id of exactly 256 bytes is fine.
    QVERIFY(announce(instance(QByteArray(ServiceRegistry::kMaxIdBytes, 'i'), QStringLiteral("h"))));
}

void ServiceRegistryTest::keyOfAnotherTypeIsCorrupt()
{
    QVERIFY(m_core.inspect({"SET", hashKey(), "not a hash"}));
    const auto reply = announce(instance("h:1:1", QStringLiteral("h")));
    QVERIFY(!reply);
    QCOMPARE(reply.error().kind, ErrorKind::WrongType);
    QVERIFY2(reply.error().message.contains(QString::fromUtf8(hashKey())),
             qPrintable(reply.error().message));
    QCOMPARE(m_core.bytes({"GET", hashKey()}), QByteArray("not a hash"));
    QCOMPARE(m_core.pttl(seenKey()), qint64(-2));
    // And a list() over it fails with the type error instead of showing an empty registry.
    const auto listed = list();
    QVERIFY(!listed);
    QCOMPARE(listed.error().kind, ErrorKind::WrongType);
}

void ServiceRegistryTest::brokenEntriesAreUnreadable()
{
    QVERIFY(announce(instance("good:1:00000001", QStringLiteral("good"))));
    const QByteArray now = QByteArray::number(m_core.serverNowMs());
    QVERIFY(m_core.inspect({"HSET", hashKey(), "broken:1:1", "{\"host\":", "typed:1:1",
                            R"({"host":"t","pid":"forty-two"})", "array:1:1", "[]",
                            "payload-only:1:1", R"({"host":"p"})"}));
    QVERIFY(m_core.inspect({"ZADD", seenKey(), now, "broken:1:1", now, "typed:1:1", now,
                            "array:1:1", now, "seen-only:1:1"}));
    const auto listed = list();
    QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().toString()));
    QCOMPARE(ids(*listed), QStringList{QStringLiteral("good:1:00000001")});
    QCOMPARE(listed->unreadable.size(), size_t(5));
    const QString all =
        QStringList(listed->unreadable.begin(), listed->unreadable.end()).join(QLatin1Char('\n'));
    for (const char* expected :
         {"service array:1:1: the payload is no JSON object",
          "service broken:1:1: the payload is no JSON (",
          "service payload-only:1:1: no last-seen time in tg:{:}:services:seen",
          "service seen-only:1:1: last seen 0 s ago, but no payload in tg:{:}:services",
          "service typed:1:1: field pid must be a whole number"})
        QVERIFY2(all.contains(QLatin1String(expected)), qPrintable(all));
}

QTEST_GUILESS_MAIN(ServiceRegistryTest)
#include "tst_ServiceRegistry.moc"
