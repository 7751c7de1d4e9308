// The RESP reader's caps, byte by byte: a header breaking them fails as soon as its line is
// complete, however the bytes are split; payload bytes that look like headers are data.
#include "core/redis/RespCodec.h"

#include <QtTest>

using namespace tollgate;

class tst_RespLimits : public QObject
{
    Q_OBJECT

private:
    // Feeds `bytes` in chunks of `chunk` bytes; returns every reply, or the first error.
    static Result<QList<Reply>> parse(const QByteArray& bytes, int chunk)
    {
        RespParser parser;
        QList<Reply> replies;
        for (qsizetype at = 0; at < bytes.size(); at += chunk) {
            parser.feed(bytes.mid(at, chunk));
            for (;;) {
                auto next = parser.next();
                if (!next)
                    return next.error();
                if (!next->has_value())
                    break;
                replies << **next;
            }
        }
        return replies;
    }

private Q_SLOTS:
    void splitAnywhere_data()
    {
        QTest::addColumn<int>("chunk");
        for (int chunk : {1, 2, 3, 7, 4096})
            QTest::newRow(qPrintable(QString::number(chunk))) << chunk;
    }

    void splitAnywhere()
    {
        QFETCH(int, chunk);
        // A bulk string whose payload looks like a huge header, then a normal array.
        const QByteArray payload = "*2147483647\r\n$99999999999\r\n";
        const QByteArray stream =
            "$" + QByteArray::number(payload.size()) + "\r\n" + payload + "\r\n*2\r\n:1\r\n+OK\r\n";
        const auto replies = parse(stream, chunk);
        QVERIFY2(replies, qPrintable(replies ? QString() : replies.error().toString()));
        QCOMPARE(replies->size(), 2);
        QCOMPARE(replies->at(0).string, payload);
        QCOMPARE(replies->at(1).elements.size(), size_t(2));

        const auto refused = parse(":5\r\n*2147483647\r\n:1\r\n", chunk);
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::Protocol);
    }

    void limitsAreConfigurable()
    {
        RespLimits limits;
        limits.maxElements = 3;
        limits.maxBulkBytes = 4;
        RespParser parser(limits);
        parser.feed("*3\r\n$4\r\nabcd\r\n:1\r\n:2\r\n");
        auto ok = parser.next();
        QVERIFY(ok && ok->has_value());
        parser.feed("$5\r\nabcde\r\n");
        auto refused = parser.next();
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::Protocol);
        QVERIFY(refused.error().message.contains(QStringLiteral("limit")));
        parser.reset(); // a new connection starts clean
        parser.feed("*4\r\n");
        QVERIFY(!parser.next());
    }
};

QTEST_GUILESS_MAIN(tst_RespLimits)
#include "tst_RespLimits.moc"
