// The dashboard's charts through a stalled Redis (SIGSTOP, traffic going on): the seconds it
// counted nothing are a gap, not a drop to 0, and the backlog it counts once it runs again
// does not rescale the y axis. Their lines are drawn as the title says (only would-be denials
// dotted), and hovering the plot tells each action's value at that time.

#include "tests/gui/PausedRedis.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/dashboard/RateChart.h"
#include "ui/dashboard/StatsSampler.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTimer>
#include <QToolTip>
#include <QValueAxis>
#include <QtTest>
#include <cmath>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::PausedRedis;
using tollgate::test::RedisServer;

class tst_StallCharts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void stallIsAGapWithoutRescale();
    void linesMatchTheTitle();
    void hoverShowsValues();
    void rangeSwitchWhileStalled();
    void legendFitsAt1024x700();

private:
    bool save(const QByteArray& action, bool shadow);
    const ActionStats* row(const QByteArray& action) const;

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<DashboardPage> m_page;
    std::map<QByteArray, Policy> m_policies;
};

bool tst_StallCharts::save(const QByteArray& action, bool shadow)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{100'000, 60'000}}; // nobody is denied: the hits chart shows the rate
    policy.shadow = shadow;
    std::optional<bool> saved;
    QObject context;
    m_session->policies().save(policy, QStringLiteral("tester"), &context,
                               [&](Result<qint64> r) { saved = r.ok(); });
    if (!QTest::qWaitFor([&] { return saved.has_value(); }, 5000) || !*saved)
        return false;
    m_policies[action] = policy;
    return true;
}

const ActionStats* tst_StallCharts::row(const QByteArray& action) const
{
    const int index = m_page->actionsModel()->rowOf(action);
    return index < 0 ? nullptr : &m_page->actionsModel()->rows()[size_t(index)];
}

void tst_StallCharts::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("tester");
    settings.responseDeadline = std::chrono::milliseconds(1000);
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY_WITH_TIMEOUT(m_session->state() == ConnectionState::Connected, 5000);
    QVERIFY(save("login", false));
    QVERIFY(save("search", false));
    QVERIFY(save("probe", true));
    m_page = std::make_unique<DashboardPage>(m_session.get());
    m_page->resize(1280, 700);
    m_page->show();
    QTRY_VERIFY_WITH_TIMEOUT(m_page->hitsChart()->series("login"), 5000);
}

void tst_StallCharts::stallIsAGapWithoutRescale()
{
    // 20 hits a second, before, during and after the stall (those sent during it wait).
    Limiter limiter = m_session->limiter();
    limiter.setRecordStats(true);
    QTimer traffic;
    traffic.setInterval(50);
    connect(&traffic, &QTimer::timeout, this, [&] {
        limiter.hit(m_policies.at("login"), "dora", 0, this, [](Result<HitResult>) {});
    });
    traffic.start();
    RateChart* chart = m_page->hitsChart();
    QTest::qWait(5000);
    const double top = chart->valueAxis()->max();
    QVERIFY(top > 0);
    QCOMPARE(chart->pieceCount("login"), 1);

    {
        PausedRedis pause(m_redis);
        QTRY_VERIFY_WITH_TIMEOUT(!m_session->isResponsive(), 3500);
        QTest::qWait(2500);
    }
    // The seconds without a count are a gap (NaN), the line goes on in a piece of its own.
    QTRY_VERIFY_WITH_TIMEOUT(chart->pieceCount("login") >= 2, 5000);
    QTest::qWait(3000); // the backlog is counted and charted
    const ActionStats* login = row("login");
    QVERIFY(login);
    const qsizetype missing = std::count_if(login->hits.begin(), login->hits.end(),
                                            [](double v) { return std::isnan(v); });
    QVERIFY2(missing >= 2, qPrintable(QString::number(missing)));
    const double backlog =
        *std::max_element(login->hits.begin(), login->hits.end(), [](double a, double b) {
            return (std::isnan(a) ? 0 : a) < (std::isnan(b) ? 0 : b);
        });
    QVERIFY2(backlog > top, qPrintable(QStringLiteral("%1 vs %2").arg(backlog).arg(top)));
    QVERIFY2(chart->valueAxis()->max() <= top,
             qPrintable(QStringLiteral("%1 > %2").arg(chart->valueAxis()->max()).arg(top)));
    // Hovering the gap says why there is no value.
    const qsizetype gap = std::find_if(login->hits.begin(), login->hits.end(),
                                       [](double v) { return std::isnan(v); }) -
                          login->hits.begin();
    const QString text = chart->valueText("login", double(gap - (login->hits.size() - 1)));
    QVERIFY2(text.contains(QStringLiteral("not responding")), qPrintable(text));
    traffic.stop();
}

void tst_StallCharts::linesMatchTheTitle()
{
    RateChart* denials = m_page->denialsChart();
    QTRY_VERIFY_WITH_TIMEOUT(denials->shadowSeries("probe"), 5000);
    QVERIFY(denials->chart()->title().contains(QStringLiteral("dotted: would deny")));
    // Dotted means "would deny" and nothing else: every action's own line is solid.
    for (const char* action : {"login", "search", "probe"}) {
        QVERIFY(denials->series(action));
        QCOMPARE(denials->series(action)->pen().style(), Qt::SolidLine);
        QCOMPARE(m_page->hitsChart()->series(action)->pen().style(), Qt::SolidLine);
    }
    QCOMPARE(denials->shadowSeries("probe")->pen().style(), Qt::DotLine);
    QVERIFY(denials->series("login")->pen().color() != denials->series("search")->pen().color());
}

void tst_StallCharts::hoverShowsValues()
{
    RateChart* chart = m_page->hitsChart();
    const QRectF plot = chart->chart()->plotArea();
    // Anywhere over the plot, not only on a line: every action's value at that time.
    const QPoint at = chart->mapFromScene(
        chart->chart()->mapToScene(QPointF(plot.right() - plot.width() * 0.1, plot.center().y())));
    QTest::mouseMove(chart->viewport(), at);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 2000);
    QVERIFY2(QToolTip::text().contains(QStringLiteral("login: ")), qPrintable(QToolTip::text()));
    QVERIFY2(QToolTip::text().contains(QStringLiteral("search: ")), qPrintable(QToolTip::text()));
    QVERIFY2(QToolTip::text().contains(QStringLiteral(" s ago")), qPrintable(QToolTip::text()));
}

void tst_StallCharts::rangeSwitchWhileStalled()
{
    RateChart* chart = m_page->hitsChart();
    QTRY_VERIFY(chart->series("login")->count() > 0);
    PausedRedis pause(m_redis);
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isResponsive(), 3500);
    // The seconds sampled before are no hour: none of them is spread over the hour's axis.
    m_page->setRange(ChartRange::Hour);
    QCOMPARE(chart->series("login")->count(), 0);
    pause.resume();
    QTRY_VERIFY_WITH_TIMEOUT(chart->series("login")->count() == shapeOf(ChartRange::Hour).points,
                             8000);
    m_page->setRange(ChartRange::FiveMinutes);
}

void tst_StallCharts::legendFitsAt1024x700()
{
    // The demo's seven actions and one more, on the dashboard's share of a 1024x700 window.
    for (const char* action : {"view", "like", "comment", "upload", "export"})
        QVERIFY(save(action, false));
    m_page->resize(880, 560);
    RateChart* chart = m_page->hitsChart();
    QTRY_COMPARE_WITH_TIMEOUT(chart->seriesCount(), 8, 5000);
    QTest::qWait(200); // laid out
    QLegend* legend = chart->chart()->legend();
    const qreal needed = legend->effectiveSizeHint(Qt::PreferredSize).height();
    QVERIFY2(needed <= legend->geometry().height() + 1,
             qPrintable(QStringLiteral("the legend needs %1 px, has %2")
                            .arg(needed)
                            .arg(legend->geometry().height())));
    QVERIFY(legend->font().pointSizeF() >= 6);
}

QTEST_MAIN(tst_StallCharts)
#include "tst_StallCharts.moc"
