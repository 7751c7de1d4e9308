// Client::executePipeline over PipelineBuilder against a real redis-server: the same replies as
// executeBatch for the same commands (odd and huge arguments included), one failing entry never
// failing the others, bad pipelines refused before sending, and every entry settled exactly once
// when the server goes away mid-pipeline or the connection is over its in-flight limit.
#include "core/client/ClientInternals.h"
#include "core/redis/CommandBuilder.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CoreFixture;

namespace {

using Replies = std::vector<Result<Reply>>;

// Waits (on an event loop, never a sleep) for the one delivery of `send`'s callback.
Replies collect(const std::function<void(QObject*, std::function<void(Replies)>)>& send,
                int* deliveries = nullptr, int timeoutMs = 30000)
{
    QObject context;
    std::optional<Replies> out;
    int calls = 0;
    send(&context, [&](Replies replies) {
        ++calls;
        out = std::move(replies);
    });
    QElapsedTimer clock;
    clock.start();
    while (!out && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QCoreApplication::processEvents(); // a second delivery would show up here
    if (deliveries)
        *deliveries = calls;
    return out ? std::move(*out) : Replies();
}

EncodedPipeline encode(const std::vector<Command>& commands)
{
    PipelineBuilder builder;
    for (const Command& command : commands) {
        builder.command(command.size());
        for (const QByteArray& argument : command)
            builder.add(argument);
    }
    auto built = std::move(builder).finish();
    return built ? std::move(*built) : EncodedPipeline();
}

QString describe(const Result<Reply>& reply)
{
    return reply ? reply->toDisplayString() : QStringLiteral("error: ") + reply.error().toString();
}

} // namespace

class tst_Pipeline : public QObject
{
    Q_OBJECT

private:
    Replies pipeline(Client* client, const std::vector<Command>& commands,
                     int* deliveries = nullptr)
    {
        return collect(
            [&](QObject* context, std::function<void(Replies)> done) {
                ClientInternals::executePipeline(*client, encode(commands), context,
                                                 std::move(done));
            },
            deliveries);
    }
    Replies batch(Client* client, const std::vector<Command>& commands)
    {
        return collect([&](QObject* context, std::function<void(Replies)> done) {
            client->executeBatch(commands, context, std::move(done));
        });
    }

    CoreFixture m_core;

private Q_SLOTS:
    void initTestCase() { TOLLGATE_REQUIRE(m_core, start()); }
    void init() { TOLLGATE_REQUIRE(m_core, restartAndFlush()); } // one test kills the server

    void sameRepliesAsABatch_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::newRow("plain") << QByteArray("tg:{u1}:like:fw:60000");
        QTest::newRow("unicode") << QByteArray("tg:{zoë 😀 ユーザー}:like:fw:60000");
        QTest::newRow("spaces") << QByteArray("a key with  spaces ");
        QTest::newRow("colons and braces") << QByteArray("tg:{{}}:{:}:x:");
        QTest::newRow("glob") << QByteArray("*?[a-z]*");
        QTest::newRow("newlines and crlf") << QByteArray("line\nbreak\r\n$3\r\nGET\r\n");
        QTest::newRow("nul bytes") << QByteArray("nul\0inside\0", 11);
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("1 MB") << QByteArray(1024 * 1024, 'k');
    }
    void sameRepliesAsABatch()
    {
        QFETCH(QByteArray, key);
        const QByteArray value = key + "=value";
        const std::vector<Command> commands{{"SET", key, value, "PX", "60000"},
                                            {"GET", key},
                                            {"PTTL", key},
                                            {"EXISTS", key, key + ":other", key},
                                            {"GET", key + ":missing"},
                                            {"HGETALL", key + ":missing"}};
        int deliveries = 0;
        const Replies piped = pipeline(m_core.client(), commands, &deliveries);
        QCOMPARE(deliveries, 1);
        QCOMPARE(piped.size(), commands.size());
        QVERIFY2(piped[1] && piped[1]->toBytes() == value, qPrintable(describe(piped[1])));
        QVERIFY(piped[2] && piped[2]->integer > 0 && piped[2]->integer <= 60000);
        QCOMPARE(piped[3]->integer, qint64(2)); // the key counted twice, the other absent
        QVERIFY(piped[4] && piped[4]->isNil());
        QVERIFY(piped[5] && piped[5]->isArray() && piped[5]->elements.empty());
        // The same commands as plain arguments give the same replies (the PTTL aside, which
        // moves).
        const Replies batched = batch(m_core.client(), commands);
        QCOMPARE(batched.size(), piped.size());
        for (size_t i = 0; i < piped.size(); ++i)
            if (i != 2)
                QCOMPARE(describe(piped[i]), describe(batched[i]));
    }

    void aFailingCommandFailsOnlyItsEntry()
    {
        QVERIFY(m_core.inspect({"HSET", "hash", "f", "v"}));
        QVERIFY(m_core.inspect({"SET", "text", "abc"}));
        const Replies replies = pipeline(m_core.client(), {{"SET", "before", "1"},
                                                           {"GET", "hash"},
                                                           {"INCR", "text"},
                                                           {"NOSUCHCOMMAND", "x"},
                                                           {"PTTL", "hash"},
                                                           {"GET", "before"}});
        QCOMPARE(replies.size(), size_t(6));
        QVERIFY(replies[0]);
        QVERIFY(!replies[1]);
        QVERIFY2(replies[1].error().message.contains(QStringLiteral("WRONGTYPE")),
                 qPrintable(replies[1].error().message));
        QVERIFY(!replies[2]);
        QVERIFY(!replies[3]);
        QVERIFY(replies[4] && replies[4]->integer == -1);
        QVERIFY(replies[5] && replies[5]->toBytes() == "1");
    }

    void badPipelinesAreRefusedBeforeSending()
    {
        PipelineBuilder miscounted;
        miscounted.command(2).add("GET").add("a");
        miscounted.command(3).add("SET").add("b");
        miscounted.command(1).add("PING");
        auto refused = std::move(miscounted).finish();
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
        QVERIFY2(refused.error().message.contains(QStringLiteral("command 1")),
                 qPrintable(refused.error().message));

        PipelineBuilder subscribing;
        subscribing.command(1).add("PING");
        subscribing.command(2).add("subscribe").add("channel");
        QVERIFY(!std::move(subscribing).finish());
        QVERIFY(!PipelineBuilder().finish());

        // An empty pipeline is answered at once, with no replies.
        int deliveries = 0;
        const Replies none = pipeline(m_core.client(), {}, &deliveries);
        QCOMPARE(deliveries, 1);
        QVERIFY(none.empty());
        QCOMPARE(m_core.dbsize(), qint64(0));
    }

    void beyondTheInFlightLimitEveryCommandStillRuns()
    {
        ConnectionOptions options = m_core.options();
        options.maxInFlight = 5;
        auto client = m_core.connect(options);
        QVERIFY2(client, qPrintable(m_core.errorString()));
        std::vector<Command> commands;
        for (int i = 0; i < 40; ++i)
            commands.push_back({"INCR", "counter"});
        const Replies replies = pipeline(client.get(), commands);
        QCOMPARE(replies.size(), commands.size());
        for (size_t i = 0; i < replies.size(); ++i)
            QVERIFY2(replies[i] && replies[i]->integer == qint64(i + 1),
                     qPrintable(describe(replies[i])));
    }

    void serverGoneMidPipelineSettlesEveryEntryOnce()
    {
        ConnectionOptions options = m_core.options();
        options.autoReconnect = false;
        auto client = m_core.connect(options);
        QVERIFY2(client, qPrintable(m_core.errorString()));
        QVERIFY(pipeline(client.get(), {{"SET", "k", "v"}}).at(0));
        // The server holds every reply back, then dies with the pipeline unanswered.
        QVERIFY(m_core.inspect({"CLIENT", "PAUSE", "10000", "ALL"}));
        QTimer::singleShot(300, [this] { m_core.server().kill(); });
        std::vector<Command> commands;
        for (int i = 0; i < 1000; ++i)
            commands.push_back({"GET", "k"});
        int deliveries = 0;
        const Replies replies = pipeline(client.get(), commands, &deliveries);
        QCOMPARE(deliveries, 1);
        QCOMPARE(replies.size(), commands.size());
        for (const Result<Reply>& reply : replies)
            QVERIFY2(!reply, qPrintable(describe(reply)));
        // Once down, a pipeline fails at once, every entry with the reason.
        const Replies down = pipeline(client.get(), {{"GET", "k"}, {"PING"}}, &deliveries);
        QCOMPARE(deliveries, 1);
        QCOMPARE(down.size(), size_t(2));
        QVERIFY(!down[0] && !down[1]);
    }
};

QTEST_GUILESS_MAIN(tst_Pipeline)
#include "tst_Pipeline.moc"
