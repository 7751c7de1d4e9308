// The UTC-offset tables hit.lua gets for a policy's IANA zone (core/policies/ZoneOffsets.h),
// checked against known DST changes; the script side is tests/integration/tst_LimiterEdges.cpp.

#include "core/policies/ZoneOffsets.h"

#include <QDateTime>
#include <QtTest>

using namespace tollgate;

class ZoneOffsetsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void knownYears_data();
    void knownYears();
    void unknownZoneIsInvalidInput();
    void aroundNowCoversTheNextChange();
};

void ZoneOffsetsTest::knownYears_data()
{
    QTest::addColumn<QByteArray>("zone");
    QTest::addColumn<QByteArray>("table");
    // 2026: Berlin springs forward on 29 March 01:00 UTC and falls back on 25 October 01:00 UTC.
    QTest::newRow("Berlin") << QByteArray("Europe/Berlin")
                            << QByteArray("3600000,1774746000000:7200000,1792890000000:3600000");
    QTest::newRow("UTC") << QByteArray("UTC") << QByteArray("0");
    QTest::newRow("Kolkata, no DST") << QByteArray("Asia/Kolkata") << QByteArray("19800000");
    QTest::newRow("fixed offset") << QByteArray("UTC-05:00") << QByteArray("-18000000");
}

void ZoneOffsetsTest::knownYears()
{
    QFETCH(QByteArray, zone);
    QFETCH(QByteArray, table);
    const qint64 from = 1'767'225'600'000; // 2026-01-01T00:00Z
    const qint64 to = 1'798'761'600'000;   // 2027-01-01T00:00Z
    const auto offsets = zoneOffsets(zone, from, to);
    QVERIFY2(offsets.ok(), offsets ? "" : qPrintable(offsets.error().message));
    QCOMPARE(*offsets, table);
    QVERIFY(isKnownZone(zone));
}

void ZoneOffsetsTest::unknownZoneIsInvalidInput()
{
    QVERIFY(!isKnownZone("Mars/Olympus"));
    QVERIFY(!isKnownZone(""));
    const auto offsets = zoneOffsets("Mars/Olympus", 0, 1000);
    QVERIFY(!offsets.ok());
    QCOMPARE(offsets.error().kind, ErrorKind::InvalidInput);
    QVERIFY(offsets.error().message.contains(QStringLiteral("Mars/Olympus")));
}

void ZoneOffsetsTest::aroundNowCoversTheNextChange()
{
    // The span each hit gets holds the offset in force now, whatever the zone's next change.
    const auto table = zoneOffsetsAroundNow("Europe/Berlin");
    QVERIFY(table.ok());
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QList<QByteArray> parts = table->split(',');
    qint64 offset = parts.first().toLongLong();
    for (const QByteArray& change : parts.mid(1)) {
        if (change.split(':').first().toLongLong() <= now)
            offset = change.split(':').last().toLongLong();
    }
    QCOMPARE(offset,
             qint64(QTimeZone("Europe/Berlin").offsetFromUtc(QDateTime::currentDateTimeUtc())) *
                 1000);
    QCOMPARE(*zoneOffsetsAroundNow("Europe/Berlin"), *table); // cached
    // The 10-year span stored with policies has about two changes a year.
    const auto stored = zoneOffsetsForPolicy("Europe/Berlin");
    QVERIFY(stored.ok());
    QVERIFY(stored->count(',') >= 18 && stored->count(',') <= 22);
}

QTEST_APPLESS_MAIN(ZoneOffsetsTest)
#include "tst_ZoneOffsets.moc"
