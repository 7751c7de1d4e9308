// Cluster hash slots computed by the client must be exactly the server's (CLUSTER KEYSLOT):
// reference values from the Redis Cluster specification, and the hash-tag rules.

#include "core/cluster/KeySlot.h"

#include <QtTest>

using namespace tollgate;

class KeySlotTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void knownSlots_data();
    void knownSlots();
    void hashTags_data();
    void hashTags();
};

void KeySlotTest::knownSlots_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("slot");
    // CRC16-XMODEM("123456789") = 0x31C3, the spec's check value; 0x31C3 % 16384 = 12739.
    QTest::newRow("check value") << QByteArray("123456789") << 0x31C3 % 16384;
    QTest::newRow("foo") << QByteArray("foo") << 12182;
    QTest::newRow("bar") << QByteArray("bar") << 5061;
    QTest::newRow("empty") << QByteArray() << 0;
}

void KeySlotTest::knownSlots()
{
    QFETCH(QByteArray, key);
    QFETCH(int, slot);
    QCOMPARE(keySlot(key), slot);
}

void KeySlotTest::hashTags_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("tag");
    QTest::newRow("no braces") << QByteArray("user1000") << QByteArray("user1000");
    QTest::newRow("a tag") << QByteArray("{user1000}.following") << QByteArray("user1000");
    QTest::newRow("first tag only") << QByteArray("foo{bar}{zap}") << QByteArray("bar");
    QTest::newRow("empty tag: whole key") << QByteArray("foo{}{bar}") << QByteArray("foo{}{bar}");
    QTest::newRow("nested opening") << QByteArray("foo{{bar}}zap") << QByteArray("{bar");
    QTest::newRow("unclosed") << QByteArray("foo{bar") << QByteArray("foo{bar");
    QTest::newRow("tollgate key") << QByteArray("tg:{u%0A1}:like:fw:60000") << QByteArray("u%0A1");
}

void KeySlotTest::hashTags()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, tag);
    QCOMPARE(hashTagOf(key), tag);
    QCOMPARE(keySlot(key), keySlot(tag));
}

QTEST_GUILESS_MAIN(KeySlotTest)
#include "tst_KeySlot.moc"
