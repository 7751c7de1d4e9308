// The dashboard against a real redis-server: hits recorded through the core Limiter with
// statistics on show up as rates and chart points, INFO fills the server tiles, and the
// throttled scan finds bans and subjects near or over their limit.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/dashboard/RateChart.h"
#include "ui/dashboard/StatsSampler.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTableView>
#include <QValueAxis>
#include <QSignalSpy>
#include <QtTest>
#include <optional>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class tst_Dashboard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void ratesAndCharts();
    void chartLegendHoverAndUnit();
    void emptyServerShowsGuide();
    void serverTiles();
    void bansAndNearLimit();
    void nearLimitRowOpensUser();
    void truncatedScanSaysSample();
    void screenshot();

private:
    // Runs an asynchronous core call and waits (event loop running) for its result.
    template <typename T, typename Call>
    std::optional<Result<T>> await(Call call)
    {
        std::optional<Result<T>> out;
        QObject context;
        call(&context, [&out](Result<T> result) { out = std::move(result); });
        (void)QTest::qWaitFor([&out] { return out.has_value(); }, 10'000);
        return out;
    }
    bool savePolicy(const QByteArray& action, qint64 limit, qint64 warn);
    int hits(const QByteArray& action, const QByteArray& user, int count);
    bool ban(const QByteArray& user, const QByteArray& action);
    double maxOf(const QByteArray& action, const QVector<double> ActionStats::*rate) const;

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<DashboardPage> m_page;
    std::map<QByteArray, Policy> m_policies;
};

bool tst_Dashboard::savePolicy(const QByteArray& action, qint64 limit, qint64 warn)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{limit, 60'000}};
    policy.warn = warn;
    const auto saved = await<qint64>([&](QObject* context, Callback<qint64> done) {
        m_session->policies().save(policy, QStringLiteral("test"), context, done);
    });
    if (!saved || !*saved)
        return false;
    policy.revision = saved->value();
    m_policies[action] = policy;
    return true;
}

int tst_Dashboard::hits(const QByteArray& action, const QByteArray& user, int count)
{
    Limiter limiter = m_session->limiter();
    limiter.setRecordStats(true);
    int answered = 0;
    QObject context;
    for (int i = 0; i < count; ++i)
        limiter.hit(m_policies.at(action), user, 0, &context,
                    [&answered](Result<HitResult>) { ++answered; });
    (void)QTest::qWaitFor([&] { return answered == count; }, 10'000);
    return answered;
}

bool tst_Dashboard::ban(const QByteArray& user, const QByteArray& action)
{
    BanRequest request;
    request.user = user;
    request.action = action;
    request.actor = QStringLiteral("ops-test");
    request.reason = QStringLiteral("dashboard test");
    request.durationMs = 3'600'000;
    const auto banned = await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        m_session->moderation().ban(request, context, done);
    });
    return banned && *banned;
}

double tst_Dashboard::maxOf(const QByteArray& action,
                            const QVector<double> ActionStats::*rate) const
{
    const int row = m_page->actionsModel()->rowOf(action);
    if (row < 0)
        return 0;
    const QVector<double>& values = m_page->actionsModel()->rows()[size_t(row)].*rate;
    return values.isEmpty() ? 0 : *std::max_element(values.begin(), values.end());
}

void tst_Dashboard::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Session::Settings settings;
    auto options = ConnectionOptions::fromUrl(m_redis.url());
    QVERIFY(options);
    settings.connection = *options;
    settings.actor = QStringLiteral("ops-test");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_COMPARE(m_session->state(), ConnectionState::Connected);

    QVERIFY(savePolicy("login", 5, 3));
    QVERIFY(savePolicy("search", 100, 0));
    // alice: 3 ok, 2 warn, 3 denied; bob far from his limit.
    QCOMPARE(hits("login", "alice", 8), 8);
    QCOMPARE(hits("search", "bob", 4), 4);
    QVERIFY(ban("carol", "login"));

    m_page = std::make_unique<DashboardPage>(m_session.get());
    new QAbstractItemModelTester(m_page->actionsModel(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 m_page.get());
    new QAbstractItemModelTester(m_page->nearLimitModel(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 m_page.get());
    m_page->resize(1280, 800);
    m_page->show();
    QVERIFY(m_page->sampler()->isActive());
}

void tst_Dashboard::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

void tst_Dashboard::ratesAndCharts()
{
    QTRY_VERIFY_WITH_TIMEOUT(maxOf("login", &ActionStats::hits) >= 8, 10'000);
    QTRY_VERIFY(maxOf("login", &ActionStats::denials) >= 3);
    QTRY_VERIFY(maxOf("login", &ActionStats::warns) >= 1);
    QTRY_VERIFY(maxOf("search", &ActionStats::hits) >= 4);
    QCOMPARE(maxOf("search", &ActionStats::denials), 0.0);

    // The charts draw the model's rows: one series per action, a point per second.
    RateChart* hitsChart = m_page->findChild<RateChart*>(QStringLiteral("hitsChartView"));
    RateChart* denialsChart = m_page->findChild<RateChart*>(QStringLiteral("denialsChartView"));
    QVERIFY(hitsChart && denialsChart);
    QCOMPARE(hitsChart->seriesCount(), 2);
    QLineSeries* login = hitsChart->series("login");
    QVERIFY(login);
    QCOMPARE(login->count(), kDashboardSeconds);
    double top = 0;
    for (const QPointF& point : login->points())
        top = std::max(top, point.y());
    QCOMPARE(top, maxOf("login", &ActionStats::hits));
    QVERIFY(denialsChart->series("login"));
    QCOMPARE(denialsChart->series("login")->count(), kDashboardSeconds);

    // Live: more hits move the numbers within a couple of samples.
    QCOMPARE(hits("search", "bob", 20), 20);
    QTRY_VERIFY_WITH_TIMEOUT(maxOf("search", &ActionStats::hits) >= 20, 10'000);
}

void tst_Dashboard::chartLegendHoverAndUnit()
{
    RateChart* chart = m_page->findChild<RateChart*>(QStringLiteral("hitsChartView"));
    QTRY_VERIFY(chart->series("login") && chart->series("search"));
    QCOMPARE(chart->valueAxis()->titleText(), QStringLiteral("per second"));

    // Overlapping lines stay apart: different colours and dash patterns.
    const QPen login = chart->series("login")->pen();
    const QPen search = chart->series("search")->pen();
    QVERIFY(login.color() != search.color());
    QVERIFY(login.style() != search.style());

    // A legend click hides the line and keeps it hidden through the next samples; another
    // brings it back. The entry stays in the legend.
    QLegendMarker* marker = chart->marker("login");
    QVERIFY(marker);
    Q_EMIT marker->clicked();
    QVERIFY(!chart->series("login")->isVisible());
    QSignalSpy sampled(m_page->sampler(), &StatsSampler::actionsUpdated);
    QVERIFY(sampled.wait(5000));
    QVERIFY(!chart->series("login")->isVisible());
    QVERIFY(chart->marker("login")->isVisible());
    QVERIFY(chart->marker("login")->font().strikeOut());
    Q_EMIT chart->marker("login")->clicked();
    QVERIFY(chart->series("login")->isVisible());
    QVERIFY(!chart->marker("login")->font().strikeOut());

    // Hovering names the action, its value and when.
    const QLineSeries* line = chart->series("search");
    const QPointF last = line->at(line->count() - 1);
    const QString text = chart->valueText("search", -0.2);
    QVERIFY2(text.startsWith(QStringLiteral("search: ")), qPrintable(text));
    QVERIFY2(text.contains(QLocale().toString(last.y(), 'g', 4) + QStringLiteral(" /s")),
             qPrintable(text));
    QVERIFY2(text.endsWith(QStringLiteral("now")), qPrintable(text));
    QVERIFY(chart->valueText("search", -10.4).endsWith(QStringLiteral("10 s ago")));
}

void tst_Dashboard::emptyServerShowsGuide()
{
    RedisServer empty;
    TOLLGATE_REQUIRE(empty, start());
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(empty.url());
    Session session(settings);
    session.open();
    QTRY_VERIFY(session.state() == ConnectionState::Connected);
    DashboardPage page(&session);
    page.resize(1024, 700);
    QSignalSpy sampled(page.sampler(), &StatsSampler::actionsUpdated);
    page.show();
    QVERIFY(sampled.wait(10000));
    auto* guide = page.findChild<QLabel*>(QStringLiteral("emptyGuideLabel"));
    QVERIFY(guide);
    QTRY_VERIFY(guide->isVisible());
    QVERIFY(guide->text().contains(QStringLiteral("No policies yet")));
    QVERIFY(guide->text().contains(QStringLiteral("tollgatectl simulate")));
    QVERIFY(!page.hitsChart()->isVisible());
    // On the first policy, the charts come back.
    Policy policy;
    policy.action = "first";
    policy.windows = {{5, 1000}};
    std::optional<bool> saved;
    session.policies().save(policy, QStringLiteral("t"), this,
                            [&](Result<qint64> r) { saved = r.ok(); });
    QTRY_VERIFY(saved.has_value() && *saved);
    QTRY_VERIFY_WITH_TIMEOUT(page.hitsChart()->isVisible(), 15000);
    QVERIFY(!guide->isVisible());
}

void tst_Dashboard::serverTiles()
{
    auto* ops = m_page->findChild<QLabel*>(QStringLiteral("opsValueLabel"));
    auto* memory = m_page->findChild<QLabel*>(QStringLiteral("memoryValueLabel"));
    auto* clients = m_page->findChild<QLabel*>(QStringLiteral("clientsValueLabel"));
    QVERIFY(ops && memory && clients);
    QTRY_VERIFY(m_page->sampler()->server().valid);
    QVERIFY(m_page->sampler()->server().usedMemory > 0);
    QVERIFY(m_page->sampler()->server().connectedClients >= 2); // commands + events
    QVERIFY(memory->text().contains(u'B'));
    bool number = false;
    QLocale().toLongLong(ops->text(), &number);
    QVERIFY2(number, qPrintable(ops->text()));
    QVERIFY(clients->text().toInt() >= 2);
}

void tst_Dashboard::bansAndNearLimit()
{
    ActionStatsModel* actions = m_page->actionsModel();
    const auto bansOf = [actions](const QByteArray& action) {
        const int row = actions->rowOf(action);
        return row < 0 ? -1 : actions->rows()[size_t(row)].activeBans;
    };
    QTRY_COMPARE_WITH_TIMEOUT(bansOf("login"), qint64(1), 10'000);
    QCOMPARE(bansOf("search"), qint64(0));
    QCOMPARE(actions->data(actions->index(actions->rowOf("login"), ActionStatsModel::ActiveBans))
                 .toLongLong(),
             qint64(1));

    NearLimitModel* near = m_page->nearLimitModel();
    const auto tierOf = [near](const QByteArray& user) -> std::optional<Tier> {
        for (const NearLimitEntry& entry : near->rows())
            if (entry.user == user)
                return entry.state.tier;
        return std::nullopt;
    };
    QTRY_VERIFY(tierOf("alice").has_value());
    QVERIFY(tierOf("alice") == Tier::Deny);
    QVERIFY(!tierOf("bob").has_value());
    // Banned without any counter (it expired, or was never there): listed all the same.
    QVERIFY(tierOf("carol") == Tier::Banned);

    // A ban published as an event triggers a rescan without waiting for the 10 s interval.
    QVERIFY(ban("dave", "search"));
    QTRY_COMPARE_WITH_TIMEOUT(bansOf("search"), qint64(1), 5'000);
    QTRY_VERIFY(tierOf("dave") == Tier::Banned);
    QCOMPARE(m_page->sampler()->nearLimitTotal(), qint64(near->rows().size()));
    QVERIFY(m_page->sampler()->scanComplete());
    auto* status = m_page->findChild<QLabel*>(QStringLiteral("statusLabel"));
    QVERIFY(!status->text().contains(QStringLiteral("sample")));

    // A user at warn (4 of 5) shows up as such after the next scan.
    QCOMPARE(hits("login", "erin", 4), 4);
    QVERIFY(ban("frank", "search")); // the event makes the next tick rescan
    QTRY_VERIFY_WITH_TIMEOUT(tierOf("erin") == Tier::Warn, 5'000);
    // Counts as they are now (a peek reports what the next hit would get).
    for (const NearLimitEntry& entry : near->rows()) {
        if (entry.user == "erin")
            QCOMPARE(std::make_pair(entry.state.count, entry.state.remaining), std::make_pair(4LL, 1LL));
        if (entry.user == "alice")
            QCOMPARE(std::make_pair(entry.state.count, entry.state.remaining), std::make_pair(5LL, 0LL));
    }
    // Worst first: the bans, then the denied.
    QCOMPARE(near->data(near->index(0, NearLimitModel::Tier)).toString(), tierName(Tier::Banned));
}

void tst_Dashboard::nearLimitRowOpensUser()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("nearLimitTableView"));
    QVERIFY(view);
    QTRY_VERIFY(m_page->nearLimitModel()->rowCount() > 0);
    QSignalSpy requested(m_page.get(), &DashboardPage::userRequested);
    view->setFocus();
    view->setCurrentIndex(m_page->nearLimitModel()->index(0, 0));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.front().front().toByteArray(), m_page->nearLimitModel()->rows().front().user);
}

void tst_Dashboard::truncatedScanSaysSample()
{
    StatsSampler::Options options = m_page->sampler()->options();
    const StatsSampler::Options before = options;
    options.maxScanKeys = 1;
    options.scanCount = 1;
    m_page->sampler()->setOptions(options);
    QVERIFY(ban("gina", "login")); // the event starts a new scan soon
    auto* status = m_page->findChild<QLabel*>(QStringLiteral("statusLabel"));
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->sampler()->scanComplete(), 10'000);
    QTRY_VERIFY(status->text().contains(QStringLiteral("sample")));
    m_page->sampler()->setOptions(before);
}

void tst_Dashboard::screenshot()
{
    // A little traffic over a few seconds so the charts have a shape.
    QTimer traffic;
    int tick = 0;
    Limiter limiter = m_session->limiter();
    limiter.setRecordStats(true);
    connect(&traffic, &QTimer::timeout, this, [&] {
        ++tick;
        for (int i = 0; i < 3 + tick % 5; ++i)
            limiter.hit(m_policies.at("search"), "user" + QByteArray::number(i), 0, this, {});
        limiter.hit(m_policies.at("login"), "mallory", 0, this, {});
    });
    traffic.start(100);
    QTRY_VERIFY_WITH_TIMEOUT(tick >= 60, 20'000);
    traffic.stop();
    QTRY_VERIFY(maxOf("login", &ActionStats::denials) >= 5);
    QVERIFY(ban("grace", "login")); // rescan now, so mallory is on the near-limit list
    QTRY_VERIFY(std::any_of(m_page->nearLimitModel()->rows().begin(),
                            m_page->nearLimitModel()->rows().end(),
                            [](const NearLimitEntry& entry) { return entry.user == "mallory"; }));

    const QImage image = m_page->grab().toImage();
    QCOMPARE(image.size(), QSize(1280, 800));
    const QByteArray dir = qgetenv("TOLLGATE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(image.save(QString::fromLocal8Bit(dir) + QStringLiteral("/dashboard.png")));
}

QTEST_MAIN(tst_Dashboard)
#include "tst_Dashboard.moc"
