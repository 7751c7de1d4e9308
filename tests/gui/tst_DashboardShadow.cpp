// A shadow policy on the dashboard, against a real redis-server: hits recorded through the core
// Limiter are allowed, the statistics count what enforcing would have denied and banned (and no
// real denial), the action's row is marked and shows its would-deny rate, and the denials chart
// draws a dotted "would deny" line beside the enforced action's denials. No ban is written.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/dashboard/RateChart.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QLineSeries>
#include <QTableView>
#include <QtTest>
#include <algorithm>
#include <optional>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class tst_DashboardShadow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void shadowHitsAreAllowedAndCounted();
    void dashboardMarksShadowAndDrawsWouldDeny();

private:
    bool savePolicy(const QByteArray& action, bool shadow);
    // Hits of `user` on `action`, recorded in the statistics; how many were allowed, or -1.
    int allowedOf(const QByteArray& action, const QByteArray& user, int count);
    double maxOf(const QByteArray& action, const QVector<double> ActionStats::*rate) const;

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<DashboardPage> m_page;
    std::map<QByteArray, Policy> m_policies;
    std::vector<HitResult> m_lastHits;
};

bool tst_DashboardShadow::savePolicy(const QByteArray& action, bool shadow)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{2, 60'000}};
    policy.banMs = 3'600'000;
    policy.shadow = shadow;
    std::optional<Result<qint64>> saved;
    QObject context;
    m_session->policies().save(policy, QStringLiteral("test"), &context,
                               [&saved](Result<qint64> r) { saved = std::move(r); });
    if (!QTest::qWaitFor([&] { return saved.has_value(); }, 10'000) || !*saved)
        return false;
    policy.revision = saved->value();
    m_policies[action] = policy;
    return true;
}

int tst_DashboardShadow::allowedOf(const QByteArray& action, const QByteArray& user, int count)
{
    Limiter limiter = m_session->limiter();
    limiter.setRecordStats(true);
    m_lastHits.clear();
    int answered = 0, allowed = 0;
    bool failed = false;
    QObject context;
    for (int i = 0; i < count; ++i)
        limiter.hit(m_policies.at(action), user, 0, &context, [&](Result<HitResult> hit) {
            ++answered;
            if (!hit) {
                failed = true;
                return;
            }
            allowed += hit->allowed ? 1 : 0;
            m_lastHits.push_back(*hit);
        });
    if (!QTest::qWaitFor([&] { return answered == count; }, 10'000) || failed)
        return -1;
    return allowed;
}

double tst_DashboardShadow::maxOf(const QByteArray& action,
                                  const QVector<double> ActionStats::*rate) const
{
    const int row = m_page->actionsModel()->rowOf(action);
    if (row < 0)
        return 0;
    const QVector<double>& values = m_page->actionsModel()->rows()[size_t(row)].*rate;
    return values.isEmpty() ? 0 : *std::max_element(values.begin(), values.end());
}

void tst_DashboardShadow::initTestCase()
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
    QVERIFY(savePolicy("probe", true));
    QVERIFY(savePolicy("login", false));
}

void tst_DashboardShadow::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

void tst_DashboardShadow::shadowHitsAreAllowedAndCounted()
{
    // Limit 2, ban 1 h: the third hit would deny and ban, the next ones are denied again
    // (no ban was written, so none is "banned").
    QCOMPARE(allowedOf("probe", "mallory", 5), 5);
    QCOMPARE(m_lastHits.size(), size_t(5));
    int wouldDeny = 0, wouldBan = 0;
    for (const HitResult& hit : m_lastHits) {
        QVERIFY(hit.shadow);
        wouldDeny += hit.wouldDeny() ? 1 : 0;
        wouldBan += hit.wouldBan ? 1 : 0;
        QVERIFY(hit.tier != Tier::Banned);
    }
    QCOMPARE(wouldDeny, 3);
    QCOMPARE(wouldBan, 3);
    QCOMPARE(m_redis.command({"EXISTS", m_session->schema().actionBanKey("mallory", "probe")}),
             QByteArray(":0\r\n"));
    // The enforced policy denies and bans as ever.
    QCOMPARE(allowedOf("login", "mallory", 5), 2);
    QVERIFY(!m_lastHits.back().shadow);
    QCOMPARE(m_redis.command({"EXISTS", m_session->schema().actionBanKey("mallory", "login")}),
             QByteArray(":1\r\n"));
    // The statistics: flushed within a second, totals for the exporter.
    const QByteArray stats = m_session->schema().statsKey("probe");
    QTRY_COMPARE_WITH_TIMEOUT(m_redis.command({"HGET", stats, "total:wd"}), QByteArray("$1\r\n3\r\n"),
                              5'000);
    QCOMPARE(m_redis.command({"HGET", stats, "total:wb"}), QByteArray("$1\r\n3\r\n"));
    QCOMPARE(m_redis.command({"HGET", stats, "total:h"}), QByteArray("$1\r\n5\r\n"));
    QCOMPARE(m_redis.command({"HGET", stats, "total:d"}), QByteArray("$-1\r\n"));
    QCOMPARE(m_redis.command({"HGET", stats, "total:ab"}), QByteArray("$-1\r\n"));
}

void tst_DashboardShadow::dashboardMarksShadowAndDrawsWouldDeny()
{
    m_page = std::make_unique<DashboardPage>(m_session.get());
    ActionStatsModel* actions = m_page->actionsModel();
    new QAbstractItemModelTester(actions, QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 m_page.get());
    m_page->resize(1024, 700);
    m_page->show();
    QTRY_VERIFY_WITH_TIMEOUT(maxOf("probe", &ActionStats::wouldDenials) >= 3, 10'000);
    QTRY_VERIFY(maxOf("login", &ActionStats::denials) >= 3);
    QCOMPARE(maxOf("probe", &ActionStats::denials), 0.0);
    QCOMPARE(maxOf("login", &ActionStats::wouldDenials), 0.0);

    const int probe = actions->rowOf("probe");
    const int login = actions->rowOf("login");
    QVERIFY(probe >= 0 && login >= 0);
    QCOMPARE(actions->data(actions->index(probe, ActionStatsModel::Action)).toString(),
             QStringLiteral("probe (shadow)"));
    QCOMPARE(actions->data(actions->index(login, ActionStatsModel::Action)).toString(),
             QStringLiteral("login"));
    QVERIFY(actions->data(actions->index(probe, ActionStatsModel::Action), Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("never denies")));
    QCOMPARE(actions->headerData(ActionStatsModel::WouldDenyPerSec, Qt::Horizontal).toString(),
             QStringLiteral("Would\ndeny/s"));
    auto* table = m_page->findChild<QTableView*>(QStringLiteral("actionStatsTableView"));
    QVERIFY(table && !table->isColumnHidden(ActionStatsModel::WouldDenyPerSec));

    auto* denials = m_page->findChild<RateChart*>(QStringLiteral("denialsChartView"));
    QVERIFY(denials);
    QTRY_VERIFY(denials->shadowSeries("probe"));
    QVERIFY(!denials->shadowSeries("login"));
    QLineSeries* would = denials->shadowSeries("probe");
    QCOMPARE(would->pen().style(), Qt::DotLine);
    QCOMPARE(would->pen().color(), denials->series("probe")->pen().color());
    double top = 0;
    for (const QPointF& point : would->points())
        top = std::max(top, point.y());
    QCOMPARE(top, maxOf("probe", &ActionStats::wouldDenials));
    QVERIFY(denials->chart()->title().contains(QStringLiteral("would deny")));
    auto* hitsChart = m_page->findChild<RateChart*>(QStringLiteral("hitsChartView"));
    QVERIFY(hitsChart && !hitsChart->shadowSeries("probe")); // only the denials chart

    // Near the limit: mallory at the shadow policy's limit reads "deny" in italics with a
    // tooltip that says so, her ban of the enforced one "banned".
    NearLimitModel* nearLimit = m_page->nearLimitModel();
    const auto tierOf = [nearLimit](const QByteArray& action, int role) {
        for (int row = 0; row < nearLimit->rowCount(); ++row)
            if (nearLimit->data(nearLimit->index(row, NearLimitModel::Action)).toString() ==
                QString::fromUtf8(action))
                return nearLimit->data(nearLimit->index(row, NearLimitModel::Tier), role);
        return QVariant();
    };
    QTRY_COMPARE_WITH_TIMEOUT(tierOf("probe", Qt::DisplayRole).toString(), QStringLiteral("deny"),
                              15'000);
    QVERIFY(tierOf("probe", Qt::ToolTipRole).toString().contains(QStringLiteral("Shadow policy")));
    QVERIFY(tierOf("probe", Qt::FontRole).value<QFont>().italic());
    QTRY_COMPARE_WITH_TIMEOUT(tierOf("login", Qt::DisplayRole).toString(), QStringLiteral("banned"),
                              15'000);
    QVERIFY(!tierOf("login", Qt::FontRole).isValid());
}

QTEST_MAIN(tst_DashboardShadow)
#include "tst_DashboardShadow.moc"
