// core/client/Client against a real server: pipelining, binary safety, timeouts, AUTH with an
// ACL user, SELECT from the URL, unix sockets, and where and whether callbacks run.

#include "core/redis/IoThreads.h"
#include "tests/support/CoreFixture.h"

#include <QThread>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;

class ClientTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void pipelinesInOrder();
    void binarySafeArguments_data();
    void binarySafeArguments();
    void commandTimeoutThenRecovers();
    void backPressureCapsCommandsInFlight();
    void heartbeatNoticesSilentSubscriber();
    void longScriptFailsAloneKeepsConnection();
    void aclUserAndDatabaseFromUrl();
    void unixSocket();
    void callbackOnContextThread();
    void destroyedContextGetsNoCallback();
    void repliesInOrderFromEveryThread();
    void clientsShareIoThreads();

private:
    Result<Reply> run(Client* client, const Command& command)
    {
        return await<Reply>([&](QObject* context, Callback<Reply> done) {
            client->execute(command, context, std::move(done));
        });
    }

    CoreFixture m_core;
};

void ClientTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start({QStringLiteral("--unixsocket"), QStringLiteral("redis.sock"),
                                    QStringLiteral("--unixsocketperm"), QStringLiteral("700")}));
}

void ClientTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

void ClientTest::pipelinesInOrder()
{
    constexpr int kCommands = 10000;
    QObject context;
    std::vector<qint64> replies;
    replies.reserve(kCommands);
    int errors = 0;
    for (int i = 0; i < kCommands; ++i) {
        m_core.client()->execute({"INCR", "pipeline"}, &context, [&](Result<Reply> r) {
            if (r)
                replies.push_back(r->integer);
            else
                ++errors;
        });
    }
    QTRY_COMPARE_WITH_TIMEOUT(int(replies.size()) + errors, kCommands, 20000);
    QCOMPARE(errors, 0);
    for (int i = 0; i < kCommands; ++i)
        QCOMPARE(replies[size_t(i)], qint64(i + 1)); // completed in the order they were sent
}

void ClientTest::binarySafeArguments_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("nul") << QByteArray("a\0b\0", 4);
    QTest::newRow("crlf") << QByteArray("line\r\n*3\r\n$3\r\nSET\r\n");
    QTest::newRow("all bytes") << [] {
        QByteArray all;
        for (int i = 0; i < 256; ++i)
            all += char(i);
        return all;
    }();
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("1 MB") << QByteArray(1 << 20, '\n');
}

void ClientTest::binarySafeArguments()
{
    QFETCH(QByteArray, value);
    const QByteArray key = "bin:" + value.left(16);
    QVERIFY(run(m_core.client(), {"SET", key, value}).ok());
    const auto back = run(m_core.client(), {"GET", key});
    QVERIFY(back.ok());
    QCOMPARE(back->toBytes(), value);
    QCOMPARE(m_core.integer({"STRLEN", key}), qint64(value.size()));
    QCOMPARE(m_core.integer({"DBSIZE"}), qint64(1)); // exactly one key, with exactly that name
}

void ClientTest::commandTimeoutThenRecovers()
{
    ConnectionOptions options = m_core.options();
    options.commandTimeout = std::chrono::milliseconds(300);
    auto client = m_core.connect(options);
    QVERIFY2(client, qPrintable(m_core.errorString()));

    // The server stops answering this client's commands for a while (CLIENT PAUSE from another).
    QVERIFY(m_core.inspect({"CLIENT", "PAUSE", "1500", "ALL"}).ok());
    QElapsedTimer clock;
    clock.start();
    const auto late = run(client.get(), {"PING"});
    QVERIFY(!late);
    QCOMPARE(late.error().kind, ErrorKind::Timeout);
    QVERIFY2(clock.elapsed() >= 250 && clock.elapsed() < 1400,
             qPrintable(QString::number(clock.elapsed())));

    QVERIFY(m_core.inspect({"CLIENT", "UNPAUSE"}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(client->state(), ConnectionState::Connected, 10000);
    const auto pong = run(client.get(), {"PING"});
    QVERIFY2(pong.ok(), pong ? "" : qPrintable(pong.error().toString()));
    QCOMPARE(pong->toBytes(), QByteArray("PONG"));
}

void ClientTest::backPressureCapsCommandsInFlight()
{
    ConnectionOptions options = m_core.options();
    options.maxInFlight = 2;
    options.maxQueued = 3;
    options.commandTimeout = std::chrono::milliseconds(5000);
    auto client = m_core.connect(options);
    QVERIFY2(client, qPrintable(m_core.errorString()));

    // Two commands that block on the server fill the connection; three more wait in order
    // behind them; the sixth is refused at once instead of queueing without bound.
    QObject context;
    QList<QByteArray> order;
    std::optional<Error> refused;
    for (int i = 0; i < 2; ++i)
        client->execute({"BLPOP", "backpressure:empty", "0.3"}, &context,
                        [&, i](Result<Reply> r) {
                            order << (r ? QByteArray("blpop") + QByteArray::number(i)
                                        : QByteArray("error"));
                        });
    for (int i = 0; i < 3; ++i)
        client->execute({"INCR", "backpressure:n"}, &context, [&](Result<Reply> r) {
            order << (r ? QByteArray("incr") + r->toBytes() : QByteArray("error"));
        });
    client->execute({"PING"}, &context, [&](Result<Reply> r) {
        if (!r)
            refused = r.error();
        else
            order << "ping";
    });
    QTRY_VERIFY(refused.has_value()); // before any reply has come back
    QVERIFY(order.isEmpty());
    QCOMPARE(refused->kind, ErrorKind::Busy);
    QTRY_COMPARE_WITH_TIMEOUT(order.size(), 5, 5000);
    QCOMPARE(order, (QList<QByteArray>{"blpop0", "blpop1", "incr1", "incr2", "incr3"}));
    // Once the queue drained, commands flow again.
    QVERIFY(run(client.get(), {"PING"}));
}

void ClientTest::heartbeatNoticesSilentSubscriber()
{
    ConnectionOptions options = m_core.options();
    options.commandTimeout = std::chrono::milliseconds(300);
    options.heartbeatInterval = std::chrono::milliseconds(200);
    auto subscriber = m_core.connect(options);
    QVERIFY2(subscriber, qPrintable(m_core.errorString()));
    QList<QByteArray> messages;
    QList<ConnectionState> states;
    connect(subscriber.get(), &Client::messageReceived, this,
            [&](const QByteArray&, const QByteArray& payload, const QByteArray&) {
                messages << payload;
            });
    connect(subscriber.get(), &Client::stateChanged, this, [&](ConnectionState state) {
        states << state;
        if (state == ConnectionState::Connected) // subscriptions are per connection
            subscriber->execute({"SUBSCRIBE", "hb"}, this, [](const Result<Reply>&) {});
    });
    QVERIFY(run(subscriber.get(), {"SUBSCRIBE", "hb"}));

    // Idle for several heartbeat intervals: the PINGs are answered, nothing is dropped.
    QTest::qWait(700);
    QVERIFY(!states.contains(ConnectionState::Reconnecting));
    QVERIFY(m_core.inspect({"PUBLISH", "hb", "one"}).ok());
    QTRY_COMPARE(messages, QList<QByteArray>{"one"});

    // The server goes silent (as a half-open socket would): the heartbeat notices it although
    // this connection never sends a command of its own.
    QVERIFY(m_core.inspect({"CLIENT", "PAUSE", "1500", "ALL"}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(states.contains(ConnectionState::Reconnecting), 1400);
    QVERIFY(m_core.inspect({"CLIENT", "UNPAUSE"}).ok());
    QTRY_COMPARE_WITH_TIMEOUT(subscriber->state(), ConnectionState::Connected, 10000);
    // Subscribed again on the new connection: events flow again.
    QTRY_VERIFY_WITH_TIMEOUT(
        (m_core.inspect({"PUBLISH", "hb", "two"}).ok() && messages.contains("two")), 5000);
}

void ClientTest::longScriptFailsAloneKeepsConnection()
{
    ConnectionOptions options = m_core.options();
    options.commandTimeout = std::chrono::milliseconds(300);
    auto client = m_core.connect(options);
    QVERIFY2(client, qPrintable(m_core.errorString()));
    QList<ConnectionState> states;
    connect(client.get(), &Client::stateChanged, this,
            [&](ConnectionState state) { states << state; });

    // A script that holds the server for 1.2 s, and a command queued behind it.
    std::optional<Result<Reply>> script, behind;
    QObject context;
    client->execute({"EVAL",
                     "local t = redis.call('TIME') local start = t[1] * 1e6 + t[2] "
                     "repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] - start > 1200000 "
                     "return 'script done'",
                     "0"},
                    &context, [&](Result<Reply> r) { script = std::move(r); });
    client->execute({"ECHO", "behind"}, &context, [&](Result<Reply> r) { behind = std::move(r); });
    QTRY_VERIFY_WITH_TIMEOUT(script.has_value() && behind.has_value(), 1000);
    QCOMPARE(script->error().kind, ErrorKind::Timeout);
    QCOMPARE(behind->error().kind, ErrorKind::Timeout);

    // The connection was kept: once the script is over, the late replies are skipped in order
    // and a new command gets its own answer.
    QTest::qWait(1200);
    const auto echo = run(client.get(), {"ECHO", "fresh"});
    QVERIFY2(echo, echo ? "" : qPrintable(echo.error().toString()));
    QCOMPARE(echo->toBytes(), QByteArray("fresh"));
    QVERIFY(!states.contains(ConnectionState::Reconnecting));
}

void ClientTest::aclUserAndDatabaseFromUrl()
{
    QVERIFY(m_core.inspect({"ACL", "SETUSER", "app", "on", ">s3cr:t@", "~*", "&*", "+@all"}).ok());
    QVERIFY(m_core.inspect({"SELECT", "0"}).ok());
    QVERIFY(m_core.inspect({"SET", "where", "db0"}).ok());

    const QString url =
        QStringLiteral("redis://app:s3cr%3At%40@127.0.0.1:%1/3").arg(m_core.server().port());
    auto options = ConnectionOptions::fromUrl(url);
    QVERIFY(options.ok());
    auto client = m_core.connect(*options);
    QVERIFY2(client, qPrintable(m_core.errorString()));
    QCOMPARE(run(client.get(), {"ACL", "WHOAMI"})->toBytes(), QByteArray("app"));
    QVERIFY(run(client.get(), {"SET", "where", "db3"}).ok());
    QCOMPARE(m_core.bytes({"GET", "where"}), QByteArray("db0")); // the inspector is on db 0
    const auto info = run(client.get(), {"CLIENT", "INFO"});
    QVERIFY(info->toBytes().contains(" db=3 "));

    // Wrong password: an Auth error, no hang.
    options->password = QStringLiteral("nope");
    Client wrong(*options);
    wrong.open();
    QTRY_COMPARE_WITH_TIMEOUT(wrong.lastError().kind, ErrorKind::Auth, 5000);
}

void ClientTest::unixSocket()
{
    const QString path = m_core.server().dir() + QStringLiteral("/redis.sock");
    auto options =
        ConnectionOptions::fromUrl(QStringLiteral("unix://") + path + QStringLiteral("?db=2"));
    QVERIFY(options.ok());
    auto client = m_core.connect(*options);
    QVERIFY2(client, qPrintable(m_core.errorString()));
    QVERIFY(run(client.get(), {"SET", "via", "unix"}).ok());
    QVERIFY(m_core.inspect({"SELECT", "2"}).ok());
    QCOMPARE(m_core.bytes({"GET", "via"}), QByteArray("unix"));
    QVERIFY(m_core.inspect({"SELECT", "0"}).ok());
}

void ClientTest::callbackOnContextThread()
{
    // A context living on another thread gets its callback there, never on the worker thread.
    QThread other;
    other.start();
    QObject context;
    context.moveToThread(&other);
    std::atomic<QThread*> ranOn{nullptr};
    m_core.client()->execute({"PING"}, &context,
                             [&ranOn](Result<Reply>) { ranOn = QThread::currentThread(); });
    QTRY_VERIFY_WITH_TIMEOUT(ranOn.load() != nullptr, 5000);
    QCOMPARE(ranOn.load(), &other);

    // On the test thread's own context: this thread.
    QObject here;
    std::atomic<QThread*> hereOn{nullptr};
    m_core.client()->execute({"PING"}, &here,
                             [&hereOn](Result<Reply>) { hereOn = QThread::currentThread(); });
    QTRY_VERIFY_WITH_TIMEOUT(hereOn.load() != nullptr, 5000);
    QCOMPARE(hereOn.load(), QThread::currentThread());
    other.quit();
    other.wait();
}

void ClientTest::destroyedContextGetsNoCallback()
{
    bool called = false;
    {
        QObject context;
        // BLPOP on an empty list keeps the reply back until well after the context is gone.
        m_core.client()->execute({"BLPOP", "empty", "0.2"}, &context,
                                 [&called](Result<Reply>) { called = true; });
    }
    // A later command on the same connection completes, so the first reply has arrived too.
    const auto after = run(m_core.client(), {"PING"});
    QVERIFY(after.ok());
    QTest::qWait(50); // let any stray queued call run
    QVERIFY(!called);
}

void ClientTest::repliesInOrderFromEveryThread()
{
    // INCR of one counter: the replies each caller gets must rise in the order it sent them.
    // A callback on the worker thread sends a run directly (no event to itself), a plain thread
    // and the test thread send theirs through the queue at the same time.
    constexpr int kEach = 3000;
    struct Seen
    {
        std::mutex mutex;
        std::vector<qint64> values;
        std::set<QThread*> threads;
        int errors = 0;
        void add(const Result<Reply>& r)
        {
            std::lock_guard lock(mutex);
            threads.insert(QThread::currentThread());
            if (!r)
                ++errors;
            else
                values.push_back(r->integer);
        }
        bool rising()
        {
            std::lock_guard lock(mutex);
            return std::is_sorted(values.begin(), values.end()) &&
                   std::adjacent_find(values.begin(), values.end()) == values.end();
        }
    };
    Client* client = m_core.client();
    Seen direct, queued, fromTest;
    std::atomic<QThread*> worker{nullptr};
    client->execute({"PING"}, nullptr, [&](Result<Reply>) {
        worker = QThread::currentThread();
        for (int i = 0; i < kEach; ++i)
            client->execute({"INCR", "order"}, nullptr, [&](Result<Reply> r) { direct.add(r); });
    });
    std::thread other([&] {
        for (int i = 0; i < kEach; ++i)
            client->execute({"INCR", "order"}, nullptr, [&](Result<Reply> r) { queued.add(r); });
    });
    QObject context;
    for (int i = 0; i < kEach; ++i)
        client->execute({"INCR", "order"}, &context, [&](Result<Reply> r) { fromTest.add(r); });
    other.join();
    const auto count = [](Seen& seen) {
        std::lock_guard lock(seen.mutex);
        return int(seen.values.size()) + seen.errors;
    };
    QTRY_COMPARE_WITH_TIMEOUT(count(direct) + count(queued) + count(fromTest), 3 * kEach, 20000);
    for (Seen* seen : {&direct, &queued, &fromTest}) {
        QCOMPARE(seen->errors, 0);
        QVERIFY(seen->rising());
    }
    QCOMPARE(m_core.integer({"GET", "order"}), qint64(3 * kEach));
    // The direct run completed on the worker thread it was sent from; the test thread's
    // replies came back to the test thread.
    QCOMPARE(direct.threads, std::set<QThread*>{worker.load()});
    QCOMPARE(fromTest.threads, std::set<QThread*>{QThread::currentThread()});
}

void ClientTest::clientsShareIoThreads()
{
    // More clients than cores: their connections share at most IoThreads::limit() threads,
    // and closing some leaves the others on the same threads working.
    const int clients = IoThreads::limit() + 3;
    std::vector<std::unique_ptr<Client>> open;
    std::set<QThread*> threads;
    for (int i = 0; i < clients; ++i) {
        open.push_back(m_core.connect(m_core.options()));
        QVERIFY2(open.back(), qPrintable(m_core.errorString()));
        std::atomic<QThread*> ranOn{nullptr};
        open.back()->execute({"PING"}, nullptr,
                             [&ranOn](Result<Reply>) { ranOn = QThread::currentThread(); });
        QTRY_VERIFY(ranOn.load() != nullptr);
        threads.insert(ranOn.load());
    }
    QVERIFY(int(threads.size()) <= IoThreads::limit());
    QVERIFY(!threads.count(QThread::currentThread()));
    open.erase(open.begin(), open.begin() + 2);
    for (auto& client : open)
        QCOMPARE(run(client.get(), {"ECHO", "still here"})->toBytes(), QByteArray("still here"));
}

QTEST_GUILESS_MAIN(ClientTest)
#include "tst_Client.moc"
