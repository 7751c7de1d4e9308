// The dashboard against a real redis-server: hits recorded through the core Limiter with
// statistics on show up as rates and chart points, INFO fills the server tiles, bans are
// counted exactly from the ban keys, and the paced sweep finds subjects near or over their
// limit.

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
#include <QSignalSpy>
#include <QTableView>
#include <QToolButton>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
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
    void chartRangesShowSeededMinutes();
    void exactBanCountAtScale();
    void banLeavesCountAtItsEnd();
    void screenshot();

private:
    // Runs an asynchronous core call and waits (event loop running) for its result.
    template <typename T, typename Call> std::optional<Result<T>> await(Call call)
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
    QCOMPARE(login->count(), shapeOf(ChartRange::FiveMinutes).points);
    double top = 0;
    for (const QPointF& point : login->points())
        top = std::max(top, point.y());
    QCOMPARE(top, maxOf("login", &ActionStats::hits));
    QVERIFY(denialsChart->series("login"));
    QCOMPARE(denialsChart->series("login")->count(), shapeOf(ChartRange::FiveMinutes).points);

    // Live: more hits move the numbers within a couple of samples.
    QCOMPARE(hits("search", "bob", 20), 20);
    QTRY_VERIFY_WITH_TIMEOUT(maxOf("search", &ActionStats::hits) >= 20, 10'000);
}

void tst_Dashboard::chartLegendHoverAndUnit()
{
    RateChart* chart = m_page->findChild<RateChart*>(QStringLiteral("hitsChartView"));
    QTRY_VERIFY(chart->series("login") && chart->series("search"));
    QCOMPARE(chart->valueAxis()->titleText(), QStringLiteral("per second"));

    // Lines differ by colour; all solid, since dotted means "would deny" on the denials chart.
    const QPen login = chart->series("login")->pen();
    const QPen search = chart->series("search")->pen();
    QVERIFY(login.color() != search.color());
    QCOMPARE(login.style(), Qt::SolidLine);
    QCOMPARE(search.style(), Qt::SolidLine);

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

void tst_Dashboard::chartRangesShowSeededMinutes()
{
    // Minutes written the way stats.lua writes them: 42 hits (7 denied) 5 minutes ago and 99
    // (11 denied) 10 hours ago, in the action "history".
    QVERIFY(savePolicy("history", 100, 0));
    // "*2\r\n$10\r\n<seconds>\r\n$6\r\n<micros>\r\n"
    const QList<QByteArray> time = m_redis.command({"TIME"}).split('\n');
    QVERIFY(time.size() >= 3);
    const qint64 minute = time[2].trimmed().toLongLong() / 60;
    QVERIFY(minute > 0);
    const auto packed = [](qint64 at, int hits, int denied) -> QByteArray {
        return QByteArray::number(at) + ' ' + QByteArray::number(hits) + ' ' +
               QByteArray::number(hits) + " 0 " + QByteArray::number(denied) + " 0";
    };
    const qint64 recent = minute - 5, older = minute - 600;
    QCOMPARE(m_redis.command({"HSET", m_session->schema().statsKey("history"),
                              "m" + QByteArray::number(recent % 1440), packed(recent, 42, 7),
                              "m" + QByteArray::number(older % 1440), packed(older, 99, 11)}),
             QByteArray(":2\r\n"));

    RateChart* hitsChart = m_page->hitsChart();
    RateChart* denials = m_page->denialsChart();
    // The x (in the axis' unit) of the point of `action` whose value is `y`, or none.
    const auto xOf = [](RateChart* chart, const QByteArray& action,
                        double y) -> std::optional<double> {
        if (QLineSeries* line = chart->series(action))
            for (const QPointF& point : line->points())
                if (point.y() == y)
                    return point.x();
        return std::nullopt;
    };
    // A minute may turn between the seeding and the sample: one minute either way.
    const auto near = [](std::optional<double> x, double expected, double minute) {
        return x && std::abs(*x - expected) <= minute + 1e-9;
    };

    auto* hourButton = m_page->findChild<QToolButton*>(QStringLiteral("hourButton"));
    QVERIFY(hourButton);
    hourButton->click();
    QCOMPARE(hitsChart->range(), ChartRange::Hour);
    QTRY_VERIFY_WITH_TIMEOUT(hitsChart->series("history") &&
                                 hitsChart->series("history")->count() ==
                                     shapeOf(ChartRange::Hour).points,
                             10'000);
    QTRY_VERIFY(near(xOf(hitsChart, "history", 42), -4, 1));
    QVERIFY(near(xOf(denials, "history", 7), -4, 1));
    QVERIFY(!xOf(hitsChart, "history", 99)); // ten hours ago: not in the last hour
    QCOMPARE(hitsChart->valueAxis()->titleText(), QStringLiteral("per minute"));
    QCOMPARE(hitsChart->timeAxis()->labelFormat(), QStringLiteral("%d min"));
    QVERIFY(hitsChart->chart()->title().contains(QStringLiteral("per minute")));

    m_page->findChild<QToolButton*>(QStringLiteral("dayButton"))->click();
    QTRY_VERIFY(hitsChart->series("history")->count() == shapeOf(ChartRange::Day).points);
    // On a day's axis x is in hours.
    QTRY_VERIFY(near(xOf(hitsChart, "history", 99), -599.0 / 60, 1.0 / 60));
    QVERIFY(near(xOf(hitsChart, "history", 42), -4.0 / 60, 1.0 / 60));
    QVERIFY(near(xOf(denials, "history", 11), -599.0 / 60, 1.0 / 60));
    QCOMPARE(hitsChart->timeAxis()->labelFormat(), QStringLiteral("%d h"));
    const QString hover = hitsChart->valueText("history", *xOf(hitsChart, "history", 99));
    QVERIFY2(hover.contains(QStringLiteral("99 /min")), qPrintable(hover));
    QVERIFY2(hover.contains(QStringLiteral("min ago")), qPrintable(hover));

    // Back to five minutes per second.
    m_page->findChild<QToolButton*>(QStringLiteral("fiveMinutesButton"))->click();
    QTRY_COMPARE(hitsChart->series("history")->count(), shapeOf(ChartRange::FiveMinutes).points);
    QCOMPARE(hitsChart->valueAxis()->titleText(), QStringLiteral("per second"));
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
    QTRY_COMPARE(m_page->sampler()->sweep()->total(), qint64(near->rows().size()));
    auto* status = m_page->findChild<QLabel*>(QStringLiteral("statusLabel"));
    QTRY_VERIFY(status->text().contains(QStringLiteral("Active bans: every ban key counted")));

    // A user at warn (4 of 5) shows up as such after the next scan.
    QCOMPARE(hits("login", "erin", 4), 4);
    QVERIFY(ban("frank", "search")); // the event makes the next tick rescan
    QTRY_VERIFY_WITH_TIMEOUT(tierOf("erin") == Tier::Warn, 5'000);
    // Counts as they are now (a peek reports what the next hit would get).
    for (const NearLimitEntry& entry : near->rows()) {
        if (entry.user == "erin")
            QCOMPARE(std::make_pair(entry.state.count, entry.state.remaining),
                     std::make_pair(4LL, 1LL));
        if (entry.user == "alice")
            QCOMPARE(std::make_pair(entry.state.count, entry.state.remaining),
                     std::make_pair(5LL, 0LL));
    }
    // The fastest first (the bans, no longer counted, after those with a rate).
    for (size_t row = 1; row < near->rows().size(); ++row)
        QVERIFY(near->rows()[row - 1].perMinute >= near->rows()[row].perMinute);
    // Since when banned (the ban's start) and the rate, from what was read (no read per row).
    const auto cell = [near](const QByteArray& user, int column) {
        for (size_t row = 0; row < near->rows().size(); ++row)
            if (near->rows()[row].user == user)
                return near->data(near->index(int(row), column)).toString();
        return QString();
    };
    const QString dash = QStringLiteral("\u2013");
    QVERIFY(cell("carol", NearLimitModel::Since) != dash);
    QCOMPARE(cell("carol", NearLimitModel::Remaining), QStringLiteral("0"));
    QCOMPARE(cell("alice", NearLimitModel::Since), dash);
    QTRY_VERIFY_WITH_TIMEOUT(cell("alice", NearLimitModel::Rate) != dash, 15'000);
    for (const NearLimitEntry& entry : near->rows())
        if (entry.user == "alice") // 5 counted within the first seconds of a 60 s window
            QVERIFY2(entry.perMinute >= 5 && entry.perMinute <= 300,
                     qPrintable(QString::number(entry.perMinute)));
}

void tst_Dashboard::nearLimitRowOpensUser()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("nearLimitTableView"));
    QVERIFY(view);
    QTRY_VERIFY(m_page->nearLimitModel()->rowCount() > 0);
    QSignalSpy requested(m_page.get(), &DashboardPage::userRequested);
    view->setFocus();
    view->setCurrentIndex(view->model()->index(0, 0)); // the top row as sorted
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.front().front().toString(),
             view->model()->index(0, NearLimitModel::User).data().toString());
}

void tst_Dashboard::exactBanCountAtScale()
{
    // 20,000 subjects of "bulk", every tenth banned: 2,000 bans. The sweep is starved (one
    // SCAN call an hour), so a count taken from the subjects read would be far off; the
    // count of the ban keys is exact all the same.
    QVERIFY(savePolicy("bulk", 10, 0));
    StatsSampler* sampler = m_page->sampler();
    const StatsSampler::Options before = sampler->options();
    StatsSampler::Options starved = before;
    starved.sweep.commandsPerSecond = 1;
    starved.bans.rest = std::chrono::milliseconds(200);
    m_page->hide(); // options apply to the passes started from now on
    sampler->setOptions(starved);
    std::vector<Command> seed;
    const KeySchema& schema = m_session->schema();
    for (int i = 0; i < 20'000; ++i) {
        const QByteArray user = "bulk" + QByteArray::number(i);
        seed.push_back({"SET", schema.stateKey(user, "bulk", Algorithm::FixedWindow, 60'000),
                        QByteArray::number(i % 11), "PX", "600000"});
        if (i % 10 == 0) {
            const QByteArray ban = schema.actionBanKey(user, "bulk");
            seed.push_back({"HSET", ban, "reason", "seeded", "actor", "test", "created_ms", "1",
                            "until_ms", "0", "scope", "action", "action", "bulk", "source",
                            "manual"});
        }
    }
    std::optional<bool> seeded;
    m_session->client()->executeBatch(
        std::move(seed), this, [&seeded](std::vector<Result<Reply>> replies) {
            seeded =
                std::all_of(replies.begin(), replies.end(), [](const auto& r) { return r.ok(); });
        });
    QTRY_VERIFY(seeded.has_value());
    QVERIFY(*seeded);
    m_page->show();

    ActionStatsModel* actions = m_page->actionsModel();
    const auto bulkBans = [actions] {
        const int row = actions->rowOf("bulk");
        return row < 0 ? qint64(-1) : actions->rows()[size_t(row)].activeBans;
    };
    QTRY_COMPARE_WITH_TIMEOUT(bulkBans(), qint64(2000), 20'000);
    // What the starved sweep saw is a small part of the subjects: a sample would be wrong.
    QVERIFY2(sampler->sweep()->total() < 2000,
             qPrintable(QString::number(sampler->sweep()->total())));
    QCOMPARE(actions->data(actions->index(actions->rowOf("bulk"), ActionStatsModel::ActiveBans))
                 .toLongLong(),
             qint64(2000));

    // Unbanning one through the console's core moves the count at once (its event).
    std::optional<bool> lifted;
    m_session->moderation().unban("bulk10", "bulk", QStringLiteral("ops-test"),
                                  QStringLiteral("dashboard test"), this,
                                  [&lifted](Result<qint64> n) { lifted = n && *n == 1; });
    QTRY_VERIFY(lifted.has_value());
    QVERIFY(*lifted);
    QTRY_COMPARE(bulkBans(), qint64(1999));

    // The other tests' sweeps stay small.
    m_page->hide();
    std::vector<Command> cleanup;
    for (int i = 0; i < 20'000; ++i) {
        const QByteArray user = "bulk" + QByteArray::number(i);
        cleanup.push_back({"DEL", schema.stateKey(user, "bulk", Algorithm::FixedWindow, 60'000),
                           schema.actionBanKey(user, "bulk")});
    }
    std::optional<bool> cleaned;
    m_session->client()->executeBatch(std::move(cleanup), this,
                                      [&cleaned](std::vector<Result<Reply>>) { cleaned = true; });
    QTRY_VERIFY(cleaned.has_value());
    sampler->setOptions(before);
    m_page->show();
}

void tst_Dashboard::banLeavesCountAtItsEnd()
{
    // No census pass comes in between (an hour's rest): the ban leaves the count at its end.
    StatsSampler* sampler = m_page->sampler();
    const StatsSampler::Options before = sampler->options();
    StatsSampler::Options slow = before;
    slow.bans.rest = std::chrono::hours(1);
    m_page->hide();
    sampler->setOptions(slow);
    m_page->show();
    QVERIFY(savePolicy("brief", 10, 0));
    ActionStatsModel* actions = m_page->actionsModel();
    const auto briefBans = [actions] {
        const int row = actions->rowOf("brief");
        return row < 0 ? qint64(-1) : actions->rows()[size_t(row)].activeBans;
    };
    QTRY_COMPARE_WITH_TIMEOUT(briefBans(), qint64(0), 15'000);
    QVERIFY(sampler->banCounter()->hasPass());
    const QDateTime counted = sampler->banCounter()->lastFinished();

    BanRequest request;
    request.user = "brief-user";
    request.action = "brief";
    request.actor = QStringLiteral("ops-test");
    request.reason = QStringLiteral("short ban");
    request.durationMs = 2'000;
    const auto banned = await<BanInfo>([&](QObject* context, Callback<BanInfo> done) {
        m_session->moderation().ban(request, context, done);
    });
    QVERIFY(banned && *banned);
    QTRY_COMPARE(briefBans(), qint64(1));                      // the ban event
    QTRY_COMPARE_WITH_TIMEOUT(briefBans(), qint64(0), 10'000); // its end
    QCOMPARE(sampler->banCounter()->lastFinished(), counted);  // no pass in between

    m_page->hide();
    sampler->setOptions(before);
    m_page->show();
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
    QVERIFY(ban("grace", "login")); // sweep again now, so mallory is on the near-limit list
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(m_page->nearLimitModel()->rows().begin(),
                    m_page->nearLimitModel()->rows().end(),
                    [](const NearLimitEntry& entry) { return entry.user == "mallory"; }),
        20'000);

    const QImage image = m_page->grab().toImage();
    QCOMPARE(image.size(), QSize(1280, 800));
    const QByteArray dir = qgetenv("TOLLGATE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(image.save(QString::fromLocal8Bit(dir) + QStringLiteral("/dashboard.png")));
}

QTEST_MAIN(tst_Dashboard)
#include "tst_Dashboard.moc"
