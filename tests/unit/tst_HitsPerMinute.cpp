// core/subjects/Usage's hitsPerMinute, the rate the Subjects page and the dashboard's near-limit
// list show from a usage alone: a fixed window's count over the time since it began, a sliding
// window's over its length, and "not known" (-1) where the usage cannot tell.
#include "core/subjects/Usage.h"

#include <QtTest>

using namespace tollgate;

class HitsPerMinuteTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rules_data();
    void rules();
};

void HitsPerMinuteTest::rules_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("resetMs");
    QTest::addColumn<double>("expected");
    const auto fw = int(Algorithm::FixedWindow);
    // Windows: 10 per 1 min and 100 per 1 h; the usage's limit names its window.
    QTest::newRow("fixed, 30 s into the minute")
        << fw << qint64(5) << qint64(10) << qint64(30'000) << 10.0;
    QTest::newRow("fixed, the hour's window")
        << fw << qint64(50) << qint64(100) << qint64(1'200'000) << 1.25;
    QTest::newRow("fixed, begun under a second ago")
        << fw << qint64(3) << qint64(10) << qint64(59'500) << -1.0;
    QTest::newRow("fixed, no TTL read") << fw << qint64(3) << qint64(10) << qint64(0) << -1.0;
    QTest::newRow("empty window") << fw << qint64(0) << qint64(10) << qint64(0) << 0.0;
    QTest::newRow("no window with the limit")
        << fw << qint64(3) << qint64(20) << qint64(30'000) << -1.0;
    QTest::newRow("sliding log, over the window")
        << int(Algorithm::SlidingLog) << qint64(6) << qint64(10) << qint64(59'000) << 6.0;
    QTest::newRow("sliding window, over the window")
        << int(Algorithm::SlidingWindow) << qint64(50) << qint64(100) << qint64(10) << 50.0 / 60;
    QTest::newRow("token bucket") << int(Algorithm::TokenBucket) << qint64(5) << qint64(10)
                                  << qint64(30'000) << -1.0;
}

void HitsPerMinuteTest::rules()
{
    QFETCH(int, algorithm);
    QFETCH(qint64, count);
    QFETCH(qint64, limit);
    QFETCH(qint64, resetMs);
    QFETCH(double, expected);
    const std::vector<WindowLimit> windows = {{10, 60'000}, {100, 3'600'000}};
    QCOMPARE(hitsPerMinute(Algorithm(algorithm), windows, count, limit, resetMs), expected);
}

QTEST_GUILESS_MAIN(HitsPerMinuteTest)
#include "tst_HitsPerMinute.moc"
