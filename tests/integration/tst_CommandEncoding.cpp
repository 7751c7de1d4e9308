// core/redis/CommandBuilder, the RESP encoder that replaced hiredis' redisFormatCommandArgv:
// byte-exact RESP, binary and empty arguments, large arguments and prepared fragments, checked
// against a real server.

#include "core/client/ClientInternals.h"
#include "core/redis/CommandBuilder.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::RedisServer;

class CommandEncodingTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void sameBytesAsTheReferenceEncoder_data();
    void sameBytesAsTheReferenceEncoder();
    void numbers();
    void fragmentsAndParts();
    void miscountedCommandIsRefused();
    void emptyCommandFailsAlone();
    void roundTripsThroughTheServer_data();
    void roundTripsThroughTheServer();
    void nestedRepliesParsedDirectly();

private:
    Result<Reply> run(const EncodedCommand& command)
    {
        return await<Reply>([&](QObject* context, Callback<Reply> done) {
            ClientInternals::execute(*m_core.client(), command, context, std::move(done));
        });
    }

    CoreFixture m_core;
};

void CommandEncodingTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void CommandEncodingTest::init()
{
    TOLLGATE_REQUIRE(m_core, flush());
}

void CommandEncodingTest::sameBytesAsTheReferenceEncoder_data()
{
    QTest::addColumn<Command>("args");
    QTest::newRow("ping") << Command{"PING"};
    QTest::newRow("empty argument") << Command{"SET", "k", ""};
    QTest::newRow("crlf and nul") << Command{"SET", "a\r\nb", QByteArray("\0\r\n\0", 4)};
    QTest::newRow("ten arguments") << Command{"MSET", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    QTest::newRow("long") << Command{"SET", "k", QByteArray(123456, 'x')};
}

void CommandEncodingTest::sameBytesAsTheReferenceEncoder()
{
    QFETCH(Command, args);
    // The fixture's encoder is independent of core's: the two must agree byte for byte.
    QCOMPARE(EncodedCommand::fromArgs(args).bytes(), RedisServer::encodeCommand(args));
}

void CommandEncodingTest::numbers()
{
    CommandBuilder builder(5);
    builder.addNumber(0)
        .addNumber(-1)
        .addNumber(1234567890123)
        .addNumber(std::numeric_limits<qint64>::min())
        .addNumber(std::numeric_limits<qint64>::max());
    auto built = std::move(builder).finish();
    QVERIFY(built.ok());
    QCOMPARE(built->bytes(),
             RedisServer::encodeCommand(
                 {"0", "-1", "1234567890123", "-9223372036854775808", "9223372036854775807"}));
}

void CommandEncodingTest::fragmentsAndParts()
{
    RespFragment fragment;
    fragment.add("b");
    fragment.addParts({"c", "", "d"});
    fragment.addNumber(7);
    QCOMPARE(fragment.count(), qsizetype(3));
    CommandBuilder builder(5);
    builder.add("a").add(fragment).addParts({});
    auto built = std::move(builder).finish();
    QVERIFY(built.ok());
    QCOMPARE(built->bytes(), RedisServer::encodeCommand({"a", "b", "cd", "7", ""}));
    QCOMPARE(bulkStringSize(0), qsizetype(6));   // $0\r\n\r\n
    QCOMPARE(bulkStringSize(10), qsizetype(17)); // $10\r\n + 10 + \r\n
}

void CommandEncodingTest::miscountedCommandIsRefused()
{
    CommandBuilder tooFew(3);
    tooFew.add("GET").add("k");
    auto refused = std::move(tooFew).finish();
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().kind, ErrorKind::InvalidInput);
    CommandBuilder tooMany(1);
    tooMany.add("PING").add("x");
    QVERIFY(!std::move(tooMany).finish().ok());
}

void CommandEncodingTest::emptyCommandFailsAlone()
{
    auto empty = await<Reply>([&](QObject* context, Callback<Reply> done) {
        m_core.client()->execute(Command{}, context, std::move(done));
    });
    QVERIFY(!empty.ok());
    QCOMPARE(empty.error().kind, ErrorKind::InvalidInput);
    // Nothing reached the wire: the connection still answers in step.
    QCOMPARE(run(EncodedCommand::fromArgs({"ECHO", "after"}))->toBytes(), QByteArray("after"));
}

void CommandEncodingTest::roundTripsThroughTheServer_data()
{
    QTest::addColumn<QByteArray>("value");
    QByteArray everyByte;
    for (int i = 0; i < 256; ++i)
        everyByte += char(i);
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("every byte") << everyByte;
    QTest::newRow("resp lookalike") << QByteArray("*1\r\n$4\r\nPING\r\n");
    QTest::newRow("8 MiB") << QByteArray(8 << 20, '\xA5');
}

void CommandEncodingTest::roundTripsThroughTheServer()
{
    QFETCH(QByteArray, value);
    const QByteArray key = QByteArray("bin\0key\r\n", 9);
    CommandBuilder set(3, bulkStringSize(value.size()) + 64);
    set.add("SET").addParts({key.left(4), key.mid(4)}).add(value);
    auto command = std::move(set).finish();
    QVERIFY(command.ok());
    QVERIFY(run(*command).ok());
    auto got = run(EncodedCommand::fromArgs({"GET", key}));
    QVERIFY(got.ok());
    QCOMPARE(got->string.size(), value.size());
    QVERIFY(got->string == value);
    QCOMPARE(m_core.integer({"STRLEN", key}), qint64(value.size()));
}

void CommandEncodingTest::nestedRepliesParsedDirectly()
{
    // The parser builds Reply trees itself (hiredis' reply-object hooks): every type, nested.
    auto reply =
        run(EncodedCommand::fromArgs({"EVAL",
                                      "return {1, {2, 'x', {}}, false, redis.status_reply('FINE'), "
                                      "redis.error_reply('E bad'), ''}",
                                      "0"}));
    QVERIFY(reply.ok());
    QVERIFY(reply->isArray());
    QCOMPARE(reply->elements.size(), size_t(6));
    QCOMPARE(reply->elements[0].integer, qint64(1));
    const Reply& nested = reply->elements[1];
    QVERIFY(nested.isArray());
    QCOMPARE(nested.elements.size(), size_t(3));
    QCOMPARE(nested.elements[0].integer, qint64(2));
    QCOMPARE(nested.elements[1].string, QByteArray("x"));
    QVERIFY(nested.elements[2].isArray() && nested.elements[2].elements.empty());
    QVERIFY(reply->elements[2].isNil());
    QCOMPARE(reply->elements[3].type, Reply::Type::Status);
    QCOMPARE(reply->elements[3].string, QByteArray("FINE"));
    QCOMPARE(reply->elements[4].type, Reply::Type::Error); // nested errors stay in the tree
    QCOMPARE(reply->elements[4].string, QByteArray("E bad"));
    QCOMPARE(reply->elements[5].type, Reply::Type::String);
    QVERIFY(reply->elements[5].string.isEmpty());
    auto nil = run(EncodedCommand::fromArgs({"GET", "missing"}));
    QVERIFY(nil.ok() && nil->isNil());
}

QTEST_GUILESS_MAIN(CommandEncodingTest)
#include "tst_CommandEncoding.moc"
