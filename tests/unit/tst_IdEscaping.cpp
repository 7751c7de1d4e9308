// Ids that are not UTF-8: every distinct byte string must get its own key (issue 6 point 9).
// The Python client test in tests/integration/tst_SecondLanguage.cpp checks that another
// language following lua/README.md lands on the same keys.

#include "core/keys/IdText.h"
#include "tollgate/KeySchema.h"

#include <QSet>
#include <QtTest>

using namespace tollgate;

class IdEscapingTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void invalidUtf8IsEscaped_data();
    void invalidUtf8IsEscaped();
    void distinctBytesGiveDistinctKeys();
    void textRoundTripKeepsBytes();
    void plainIdIsSharedNotCopied();
};

void IdEscapingTest::invalidUtf8IsEscaped_data()
{
    QTest::addColumn<QByteArray>("id");
    QTest::addColumn<QByteArray>("escaped");
    QTest::newRow("valid 2-byte") << QByteArray("Zo\xc3\xab") << QByteArray("Zo\xc3\xab");
    QTest::newRow("valid 4-byte") << QByteArray("\xf0\x9f\x9a\x80")
                                  << QByteArray("\xf0\x9f\x9a\x80");
    QTest::newRow("U+FFFD") << QByteArray("\xef\xbf\xbd") << QByteArray("\xef\xbf\xbd");
    QTest::newRow("plain") << QByteArray("bench-0") << QByteArray("bench-0");
    QTest::newRow("plain, then a colon") << QByteArray("user:42") << QByteArray("user%3A42");
    QTest::newRow("a brace first") << QByteArray("{x}") << QByteArray("%7Bx%7D");
    QTest::newRow("lone 0xff") << QByteArray("\xff") << QByteArray("%FF");
    QTest::newRow("lone 0xfe") << QByteArray("a\xfe") << QByteArray("a%FE");
    QTest::newRow("lone continuation") << QByteArray("\x80") << QByteArray("%80");
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << QByteArray("%C0%AF");
    QTest::newRow("overlong 3-byte") << QByteArray("\xe0\x80\xaf") << QByteArray("%E0%80%AF");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << QByteArray("%ED%A0%80");
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << QByteArray("%F4%90%80%80");
    QTest::newRow("truncated then ascii") << QByteArray("\xe6\x9dx") << QByteArray("%E6%9Dx");
    QTest::newRow("truncated at end") << QByteArray("x\xf0\x9f\x9a") << QByteArray("x%F0%9F%9A");
}

void IdEscapingTest::invalidUtf8IsEscaped()
{
    QFETCH(QByteArray, id);
    QFETCH(QByteArray, escaped);
    QCOMPARE(KeySchema::escape(id), escaped);
    QCOMPARE(KeySchema::unescape(escaped).value_or("(none)"), id);
}

void IdEscapingTest::distinctBytesGiveDistinctKeys()
{
    // Every one-byte and two-byte id, plus U+FFFD: no two share a key.
    const KeySchema s;
    QSet<QByteArray> keys;
    int ids = 0;
    for (int a = 0; a < 256; ++a) {
        keys.insert(s.userBanKey(QByteArray(1, char(a))));
        ++ids;
        for (int b = 0x80; b < 256; ++b) {
            keys.insert(s.userBanKey(QByteArray(1, char(a)) + char(b)));
            ++ids;
        }
    }
    keys.insert(s.userBanKey(QByteArray("\xef\xbf\xbd")));
    ++ids;
    QCOMPARE(keys.size(), ids);
    // A raw byte that is not UTF-8 never parses back: only escape()'s output is ours.
    QVERIFY(!KeySchema::unescape(QByteArray("\xff")).has_value());
    QVERIFY(!KeySchema::unescape(QByteArray("\xc0\xaf")).has_value());
}

void IdEscapingTest::textRoundTripKeepsBytes()
{
    // What tollgatectl does with argv: bytes -> text for the option parser -> the same bytes.
    for (int a = 0; a < 256; ++a) {
        for (int b = 0; b < 256; ++b) {
            const QByteArray id = QByteArray(1, char(a)) + char(b);
            QCOMPARE(idFromText(idToText(id)), id);
        }
    }
    const QByteArray mixed("Zo\xc3\xab \xff\xfe \xef\xbf\xbd \xf0\x9f\x9a\x80 \xed\xa0\x80");
    QCOMPARE(idFromText(idToText(mixed)), mixed);
    QCOMPARE(idToText(QByteArray("Zo\xc3\xab")), QStringLiteral("Zo\u00eb"));
    QVERIFY(idToText("\xff") != idToText("\xfe"));
    QVERIFY(idToText("\xff") != idToText("\xef\xbf\xbd"));
    QCOMPARE(idFromText(QStringLiteral("plain")), QByteArray("plain"));
    // U+FEFF is a character of the id wherever it stands, never a byte-order mark to drop.
    const QByteArray bom("\xef\xbb\xbf");
    for (const QByteArray& id : {QByteArray("m" + bom + "m"), bom, QByteArray(bom + "x"),
                                 QByteArray("x" + bom), QByteArray(bom + bom)}) {
        QCOMPARE(idToText(id).size(), id.size() - 2 * id.count(bom)); // one QChar for 3 bytes
        QCOMPARE(idFromText(idToText(id)), id);
    }
    QVERIFY(idToText("m" + bom + "m") != idToText("mm"));
    // Output text keeps a leading U+FEFF too (QString::fromUtf8 would drop it).
    QCOMPARE(idToDisplayText(bom + "x"), QString(QChar(0xFEFF)) + QLatin1Char('x'));
    QCOMPARE(idToDisplayText("a\xff"), QStringLiteral("a\ufffd"));
}

void IdEscapingTest::plainIdIsSharedNotCopied()
{
    // Every hit escapes its id: the common plain id costs no copy.
    const QByteArray id = QByteArrayLiteral("plain-user_42@example.org").toLower();
    QVERIFY(KeySchema::escape(id).isSharedWith(id));
    QVERIFY(!KeySchema::escape(id + ' ').isSharedWith(id));
}

QTEST_APPLESS_MAIN(IdEscapingTest)
#include "tst_IdEscaping.moc"
