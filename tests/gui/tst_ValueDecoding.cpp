// The value viewer reads Tollgate's keys as what they mean, one test per kind of key, each
// written by the real scripts: a fixed-window counter, a token bucket's theoretical arrival
// time, a sliding log, a sliding-window hash, the statistics ring; and, for any key, a stream
// one column per field and zset scores that are times to the millisecond.

#include "core/scripts/ScriptRunner.h"
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Session.h"
#include "ui/keys/ValueViewer.h"

#include <QLabel>
#include <QRegularExpression>
#include <QTableWidget>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class ValueDecodingTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void fixedWindowCounter();
    void tokenBucket();
    void slidingLog();
    void slidingWindow();
    void statisticsRing();
    void streamOneColumnPerField();
    void zsetTimesToTheMillisecond();

private:
    /// Saves the policy and hits it `hits` times as `user`; returns the first window's key.
    QByteArray hit(Algorithm algorithm, qint64 limit, qint64 windowMs, int hits);
    std::unique_ptr<ValueViewer> open(const QByteArray& key);
    /// The Value column of the row whose first column is `reading`.
    QString reading(ValueViewer* viewer, const QString& reading);
    QString meaning(ValueViewer* viewer);

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
};

void ValueDecodingTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("tester"));
}

void ValueDecodingTest::cleanupTestCase()
{
    m_session.reset();
}

QByteArray ValueDecodingTest::hit(Algorithm algorithm, qint64 limit, qint64 windowMs, int hits)
{
    return test::hitNewPolicy(m_session.get(), algorithm, limit, windowMs, hits);
}

std::unique_ptr<ValueViewer> ValueDecodingTest::open(const QByteArray& key)
{
    return test::openValueViewer(m_session.get(), key);
}

QString ValueDecodingTest::reading(ValueViewer* viewer, const QString& name)
{
    QTableWidget* table = viewer->table();
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0) && table->item(r, 0)->text() == name)
            return table->item(r, 1)->text();
    return QStringLiteral("(no row \"%1\")").arg(name);
}

QString ValueDecodingTest::meaning(ValueViewer* viewer)
{
    return viewer->findChild<QLabel*>(QStringLiteral("meaningLabel"))->text();
}

void ValueDecodingTest::fixedWindowCounter()
{
    auto viewer = open(hit(Algorithm::FixedWindow, 5, 60'000, 3));
    QCOMPARE(reading(viewer.get(), QStringLiteral("Units counted")), QStringLiteral("3 of 5"));
    QCOMPARE(reading(viewer.get(), QStringLiteral("Remaining")), QStringLiteral("2"));
    QVERIFY2(meaning(viewer.get()).startsWith(QStringLiteral("Fixed-window counter of 5 per 1m")),
             qPrintable(meaning(viewer.get())));
}

void ValueDecodingTest::tokenBucket()
{
    // 5 per minute: a token every 12 s; three taken, the next back within 12 s.
    auto viewer = open(hit(Algorithm::TokenBucket, 5, 60'000, 3));
    QCOMPARE(reading(viewer.get(), QStringLiteral("Tokens available now")),
             QStringLiteral("2 of 5"));
    const QString next = reading(viewer.get(), QStringLiteral("Next token in"));
    QVERIFY2(QRegularExpression(QStringLiteral("^(\\d|1[0-2])\\.\\ds$")).match(next).hasMatch(),
             qPrintable(next));
    const QString full = reading(viewer.get(), QStringLiteral("Full again in"));
    QVERIFY2(QRegularExpression(QStringLiteral("^3\\d\\.\\ds$")).match(full).hasMatch(),
             qPrintable(full)); // 36 s of TAT ahead, a little less by now
    const QString today = formatTime(QDateTime::currentMSecsSinceEpoch()).left(10);
    QVERIFY(
        reading(viewer.get(), QStringLiteral("Theoretical arrival time (TAT)")).startsWith(today));
    QVERIFY(meaning(viewer.get()).contains(QStringLiteral("theoretical arrival time")));
}

void ValueDecodingTest::slidingLog()
{
    auto viewer = open(hit(Algorithm::SlidingLog, 5, 60'000, 3));
    QTableWidget* table = viewer->table();
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->horizontalHeaderItem(0)->text(), QStringLiteral("Hit time"));
    const QRegularExpression precise(
        QStringLiteral("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}$"));
    for (int r = 0; r < 3; ++r)
        QVERIFY2(precise.match(table->item(r, 0)->text()).hasMatch(),
                 qPrintable(table->item(r, 0)->text()));
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("1")); // units of the second hit
    QCOMPARE(table->item(2, 2)->text(), QStringLiteral("3")); // the running total
    QVERIFY2(meaning(viewer.get()).contains(QStringLiteral("Units in the window now: 3 of 5")),
             qPrintable(meaning(viewer.get())));
}

void ValueDecodingTest::slidingWindow()
{
    // A week's window: four hits land in one aligned window.
    auto viewer = open(hit(Algorithm::SlidingWindow, 10, 604'800'000, 4));
    QCOMPARE(reading(viewer.get(), QStringLiteral("cur")), QStringLiteral("4"));
    QVERIFY2(meaning(viewer.get()).contains(QStringLiteral("Counted now: 4 of 10")),
             qPrintable(meaning(viewer.get())));
    QTableWidget* table = viewer->table();
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == QStringLiteral("start"))
            QVERIFY(table->item(r, 2)->text().startsWith(QStringLiteral("this window began")));
}

void ValueDecodingTest::statisticsRing()
{
    const QByteArray key = m_session->schema().statsKey("upload");
    std::optional<bool> counted;
    runScript(m_session->client(), QStringLiteral("stats"), {key},
              {"counts", "7", "9", "1", "2", "1", "0", "0", "2", "1"}, this,
              [&](Result<Reply> r) { counted = r.ok(); });
    QTRY_VERIFY(counted.has_value() && *counted);
    auto viewer = open(key);
    QTableWidget* table = viewer->table();
    QCOMPARE(table->horizontalHeaderItem(1)->text(), QStringLiteral("Hits"));
    QCOMPARE(table->rowCount(), 1);
    const QString today = formatTime(QDateTime::currentMSecsSinceEpoch()).left(10);
    QVERIFY(table->item(0, 0)->text().startsWith(today));
    const QStringList row{table->item(0, 1)->text(), table->item(0, 2)->text(),
                          table->item(0, 3)->text(), table->item(0, 4)->text(),
                          table->item(0, 5)->text(), table->item(0, 6)->text(),
                          table->item(0, 7)->text()};
    QCOMPARE(row.join(QLatin1Char(',')), QStringLiteral("7,9,1,2,1,2,1")); // with would deny/ban
    QVERIFY2(meaning(viewer.get()).contains(QStringLiteral("h 7")),
             qPrintable(meaning(viewer.get())));
}

void ValueDecodingTest::streamOneColumnPerField()
{
    m_redis.command({"XADD", "tg:{zoe}:audit", "*", "event", "ban", "reason", "spam"});
    m_redis.command({"XADD", "tg:{zoe}:audit", "*", "event", "note", "detail", "checked"});
    auto viewer = open("tg:{zoe}:audit");
    QTableWidget* table = viewer->table();
    QStringList headers;
    for (int c = 0; c < table->columnCount(); ++c)
        headers << table->horizontalHeaderItem(c)->text();
    QCOMPARE(headers.join(QLatin1Char(',')), QStringLiteral("Entry id,Time,event,detail,reason"));
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("note")); // newest first
    QCOMPARE(table->item(0, 3)->text(), QStringLiteral("checked"));
    QCOMPARE(table->item(1, 4)->text(), QStringLiteral("spam"));
    QCOMPARE(table->item(1, 3)->text(), QString()); // the field it does not have
}

void ValueDecodingTest::zsetTimesToTheMillisecond()
{
    m_redis.command({"ZADD", "foreign:times", "1795430180059", "a"});
    auto viewer = open("foreign:times");
    QCOMPARE(viewer->table()->item(0, 2)->text(), formatPreciseTime(1795430180059));
    QVERIFY(viewer->table()->item(0, 2)->text().endsWith(QStringLiteral(".059")));
}

QTEST_MAIN(ValueDecodingTest)
#include "tst_ValueDecoding.moc"
