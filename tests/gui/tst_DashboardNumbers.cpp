// The dashboard's figures say what they mean, against a real redis-server: the ban tile counts
// every ban in force by scope (user-wide and per action); a shadow policy, which bans nobody,
// shows no bans anywhere; the near-limit list keeps the fastest subjects when old bans
// outnumber its rows, sorts by any header and filters to the rows denied now.

#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/dashboard/NearLimitFilter.h"
#include "ui/dashboard/StatsSampler.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class tst_DashboardNumbers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tileCountsEveryBanByScope();
    void shadowPolicyShowsNoBans();
    void nearLimitKeepsTheFastest();
    void headersSortAndDeniedNowFilters();

private:
    Policy savePolicy(const QByteArray& action, bool shadow);
    void ban(const QByteArray& user, const QByteArray& action);
    QStringList column(int column) const; // the near-limit list as the view shows it

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<DashboardPage> m_page;
    Policy m_login;
};

Policy tst_DashboardNumbers::savePolicy(const QByteArray& action, bool shadow)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{5, 60'000}};
    policy.warn = 3;
    policy.shadow = shadow;
    std::optional<Result<qint64>> saved;
    m_session->policies().save(policy, QStringLiteral("test"), this,
                               [&saved](Result<qint64> r) { saved = std::move(r); });
    if (!QTest::qWaitFor([&] { return saved.has_value(); }, 10'000) || !*saved)
        qWarning("the policy was not saved");
    else
        policy.revision = saved->value();
    return policy;
}

void tst_DashboardNumbers::ban(const QByteArray& user, const QByteArray& action)
{
    BanRequest request{user,      action, QStringLiteral("ops-test"), QStringLiteral("test"),
                       3'600'000, 0};
    std::optional<bool> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
}

QStringList tst_DashboardNumbers::column(int column) const
{
    const QAbstractItemModel* shown = m_page->nearLimitFilter();
    QStringList cells;
    for (int row = 0; row < shown->rowCount(); ++row)
        cells << shown->index(row, column).data().toString();
    return cells;
}

void tst_DashboardNumbers::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("ops-test"));
    QVERIFY(m_session->state() == ConnectionState::Connected);
    m_login = savePolicy("login", false);
    savePolicy("probe", true);
    // Three users banned per action, one from everything, two on the shadow policy.
    for (const char* user : {"old-1", "old-2", "old-3"})
        ban(user, "login");
    ban("everywhere", QByteArray());
    for (const char* user : {"shadow-1", "shadow-2"})
        ban(user, "probe");
    // A live abuser, over the limit of 5 now (and its rate known after a second).
    QVERIFY(test::hitTimes(m_session.get(), m_login, "live", 12));
    QVERIFY(test::hitTimes(m_session.get(), m_login, "warm", 4));
    QTest::qWait(1100);

    m_page = std::make_unique<DashboardPage>(m_session.get());
    StatsSampler::Options options = m_page->sampler()->options();
    options.sweep.maxEntries = 3; // fewer rows than bans: who is kept matters
    options.sweep.rest = std::chrono::milliseconds(300);
    m_page->sampler()->setOptions(options);
    new QAbstractItemModelTester(m_page->nearLimitFilter(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 m_page.get());
    m_page->resize(1280, 800);
    m_page->show();
}

void tst_DashboardNumbers::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

void tst_DashboardNumbers::tileCountsEveryBanByScope()
{
    auto* value = m_page->findChild<QLabel*>(QStringLiteral("bansValueLabel"));
    auto* scopes = m_page->findChild<QLabel*>(QStringLiteral("banScopesLabel"));
    auto* caption = m_page->findChild<QLabel*>(QStringLiteral("bansCaptionLabel"));
    QVERIFY(value && scopes && caption);
    QCOMPARE(caption->text(), QStringLiteral("Active bans"));
    QTRY_COMPARE_WITH_TIMEOUT(value->text(), QStringLiteral("4"), 10'000);
    QCOMPARE(scopes->text(), QStringLiteral("1 user-wide, 3 per action"));
}

void tst_DashboardNumbers::shadowPolicyShowsNoBans()
{
    ActionStatsModel* actions = m_page->actionsModel();
    QTRY_VERIFY(actions->rowOf("probe") >= 0 && actions->rowOf("login") >= 0);
    QTRY_COMPARE(actions->rows()[size_t(actions->rowOf("login"))].activeBans, qint64(3));
    const QModelIndex probe = actions->index(actions->rowOf("probe"), ActionStatsModel::ActiveBans);
    QCOMPARE(actions->rows()[size_t(probe.row())].activeBans, qint64(0));
    QCOMPARE(probe.data().toString(), QStringLiteral("\u2013"));
    QVERIFY2(probe.data(Qt::ToolTipRole).toString().contains(QStringLiteral("bans nobody")),
             qPrintable(probe.data(Qt::ToolTipRole).toString()));
    // Nor does the near-limit list call the shadow policy's users banned.
    QTRY_VERIFY_WITH_TIMEOUT(m_page->sampler()->sweep()->hasCompletePass(), 10'000);
    for (const NearLimitEntry& entry : m_page->nearLimitModel()->rows())
        QVERIFY2(entry.action != "probe", entry.user.constData());
}

void tst_DashboardNumbers::nearLimitKeepsTheFastest()
{
    // Three rows, four bans and two live users: the live ones are listed, the fastest first.
    QTRY_VERIFY_WITH_TIMEOUT(column(NearLimitModel::User).contains(QStringLiteral("live")), 10'000);
    QCOMPARE(column(NearLimitModel::User).first(), QStringLiteral("live"));
    QVERIFY(column(NearLimitModel::User).contains(QStringLiteral("warm")));
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("nearLimitTableView"));
    QVERIFY(view->isSortingEnabled());
    QCOMPARE(view->horizontalHeader()->sortIndicatorSection(), int(NearLimitModel::Rate));
    QCOMPARE(view->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
}

void tst_DashboardNumbers::headersSortAndDeniedNowFilters()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("nearLimitTableView"));
    QTRY_COMPARE(view->model()->rowCount(), 3);
    // A click on a header sorts by it (users by name, then back by name descending).
    QHeaderView* header = view->horizontalHeader();
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(NearLimitModel::User) + 5, 5));
    QStringList users = column(NearLimitModel::User);
    QStringList sorted = users;
    sorted.sort();
    const bool ascending = header->sortIndicatorOrder() == Qt::AscendingOrder;
    if (!ascending)
        std::reverse(sorted.begin(), sorted.end());
    QCOMPARE(users, sorted);
    // Numbers as numbers: the rate column sorts by value.
    view->sortByColumn(NearLimitModel::Rate, Qt::AscendingOrder);
    double last = -2;
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        const double rate = view->model()
                                ->index(row, NearLimitModel::Rate)
                                .data(NearLimitModel::SortRole)
                                .toDouble();
        QVERIFY(rate >= last);
        last = rate;
    }
    // "Denied now": live (denied) and the ban stay, warm (warned) goes.
    auto* denied = m_page->findChild<QCheckBox*>(QStringLiteral("deniedNowCheckBox"));
    QVERIFY(denied);
    QVERIFY(column(NearLimitModel::User).contains(QStringLiteral("warm")));
    denied->setChecked(true);
    QVERIFY(!column(NearLimitModel::User).contains(QStringLiteral("warm")));
    QVERIFY(column(NearLimitModel::User).contains(QStringLiteral("live")));
    for (const QString& tier : column(NearLimitModel::Tier))
        QVERIFY2(tier == QStringLiteral("deny") || tier == QStringLiteral("banned"),
                 qPrintable(tier));
    // A row still opens its user through the sort and the filter.
    QSignalSpy requested(m_page.get(), &DashboardPage::userRequested);
    const int row = int(column(NearLimitModel::User).indexOf(QStringLiteral("live")));
    Q_EMIT view->activated(view->model()->index(row, 0));
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.front().front().toByteArray(), QByteArray("live"));
    denied->setChecked(false);
    QVERIFY(column(NearLimitModel::User).contains(QStringLiteral("warm")));
}

QTEST_MAIN(tst_DashboardNumbers)
#include "tst_DashboardNumbers.moc"
