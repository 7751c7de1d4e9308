// The subjects page against a real redis-server: subjects appear after hits through the core
// Limiter, their TTL counts down on screen, filter and sort work, bans show, and the models
// pass QAbstractItemModelTester.
#include "core/limits/Limiter.h"
#include "core/limits/PolicyStore.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/subjects/SubjectsFilterModel.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"
#include "ui/user/UserDetailDialog.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QtTest>
#include <memory>

using namespace tollgate;
using namespace tollgate::ui;

class tst_Subjects : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void subjectAppearsAndTtlCountsDown();
    void filterNarrowsRows();
    void sortByAnyColumn();
    void banFromCoreShowsAsBanned();
    void enterOpensUser();
    void screenshot();

private:
    void hit(const QByteArray& user, const QByteArray& action, int times);
    int sourceRow(const QByteArray& user, const QByteArray& action) const;
    QVariant cell(const QByteArray& user, const QByteArray& action, int column,
                  int role = Qt::DisplayRole) const;

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<SubjectsPage> m_page;
    std::unique_ptr<QAbstractItemModelTester> m_modelTester;
    std::unique_ptr<QAbstractItemModelTester> m_proxyTester;
    std::map<QByteArray, Policy> m_policies;
};

void tst_Subjects::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("tester");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);

    const std::pair<QByteArray, WindowLimit> definitions[] = {{"login", {5, 60'000}},
                                                              {"search", {100, 30'000}}};
    for (const auto& [action, window] : definitions) {
        Policy policy;
        policy.action = action;
        policy.windows = {window};
        bool saved = false;
        m_session->policies().save(policy, QStringLiteral("tester"), this, [&](Result<qint64> r) {
            QVERIFY2(r.ok(), qPrintable(r ? QString() : r.error().toString()));
            saved = true;
        });
        QTRY_VERIFY(saved);
        m_policies[action] = policy;
    }

    m_page = std::make_unique<SubjectsPage>(m_session.get());
    // Watch every signal the models send from the first refresh on.
    m_modelTester = std::make_unique<QAbstractItemModelTester>(
        m_page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_proxyTester = std::make_unique<QAbstractItemModelTester>(
        m_page->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_page->resize(1280, 800);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
}

void tst_Subjects::cleanupTestCase()
{
    m_proxyTester.reset();
    m_modelTester.reset();
    m_page.reset();
    m_session.reset();
}

void tst_Subjects::hit(const QByteArray& user, const QByteArray& action, int times)
{
    int done = 0;
    const Limiter limiter = m_session->limiter();
    for (int i = 0; i < times; ++i)
        limiter.hit(m_policies.at(action), user, 0, this, [&done](Result<HitResult>) { ++done; });
    QTRY_COMPARE(done, times);
}

int tst_Subjects::sourceRow(const QByteArray& user, const QByteArray& action) const
{
    return m_page->model()->rowOf({user, action});
}

QVariant tst_Subjects::cell(const QByteArray& user, const QByteArray& action, int column,
                            int role) const
{
    const int row = sourceRow(user, action);
    if (row < 0)
        return {};
    return m_page->model()->index(row, column).data(role);
}

void tst_Subjects::subjectAppearsAndTtlCountsDown()
{
    hit("alice", "login", 3);
    QTRY_VERIFY_WITH_TIMEOUT(sourceRow("alice", "login") >= 0, 10000);
    QTRY_COMPARE(cell("alice", "login", SubjectsModel::Count).toString(), QStringLiteral("3 / 5"));
    QCOMPARE(cell("alice", "login", SubjectsModel::Remaining).toLongLong(), 2);

    const qint64 first =
        cell("alice", "login", SubjectsModel::Ttl, SubjectsModel::SortRole).toLongLong();
    const QString firstText = cell("alice", "login", SubjectsModel::Ttl).toString();
    QVERIFY2(first > 50'000 && first <= 60'000, qPrintable(QString::number(first)));
    // Goes down between refreshes too: the page repaints it from the stored deadline.
    QTRY_VERIFY(cell("alice", "login", SubjectsModel::Ttl, SubjectsModel::SortRole).toLongLong() <
                first - 500);
    QTRY_VERIFY(cell("alice", "login", SubjectsModel::Ttl).toString() != firstText);
}

void tst_Subjects::filterNarrowsRows()
{
    hit("bob", "login", 1);
    hit("bobby", "search", 2);
    hit("carol", "search", 1);
    QTRY_VERIFY_WITH_TIMEOUT(sourceRow("carol", "search") >= 0 &&
                                 sourceRow("bobby", "search") >= 0 &&
                                 sourceRow("bob", "login") >= 0,
                             10000);
    SubjectsFilterModel* proxy = m_page->proxy();
    const int all = proxy->rowCount();
    QVERIFY(all >= 4);

    auto* filter = m_page->findChild<QLineEdit*>(QStringLiteral("filterLineEdit"));
    QVERIFY(filter);
    QTest::keyClicks(filter, QStringLiteral("BOB"));
    QCOMPARE(proxy->rowCount(), 2);

    auto* actions = m_page->findChild<QComboBox*>(QStringLiteral("actionComboBox"));
    QVERIFY(actions);
    QTRY_VERIFY(actions->findData(QByteArray("search")) > 0);
    actions->setCurrentIndex(actions->findData(QByteArray("search")));
    QCOMPARE(proxy->rowCount(), 1);
    QCOMPARE(proxy->index(0, SubjectsModel::User).data().toString(), QStringLiteral("bobby"));

    filter->clear();
    QCOMPARE(proxy->rowCount(), 2); // bobby and carol on "search"
    actions->setCurrentIndex(0);
    QCOMPARE(proxy->rowCount(), all);
}

void tst_Subjects::sortByAnyColumn()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    QVERIFY(view);
    SubjectsFilterModel* proxy = m_page->proxy();
    QTRY_VERIFY(proxy->rowCount() >= 4);
    for (int column = 0; column < SubjectsModel::ColumnCount; ++column) {
        for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            view->sortByColumn(column, order);
            QCOMPARE(proxy->sortColumn(), column);
            if (column == SubjectsModel::Ttl)
                continue; // changes while we look
            for (int row = 1; row < proxy->rowCount(); ++row) {
                const QVariant a = proxy->index(row - 1, column).data(SubjectsModel::SortRole);
                const QVariant b = proxy->index(row, column).data(SubjectsModel::SortRole);
                const int cmp = QVariant::compare(a, b) == QPartialOrdering::Less      ? -1
                                : QVariant::compare(a, b) == QPartialOrdering::Greater ? 1
                                                                                       : 0;
                if (a.typeId() == QMetaType::QString)
                    QVERIFY(order == Qt::AscendingOrder
                                ? a.toString().compare(b.toString(), Qt::CaseInsensitive) <= 0
                                : a.toString().compare(b.toString(), Qt::CaseInsensitive) >= 0);
                else
                    QVERIFY2(order == Qt::AscendingOrder ? cmp <= 0 : cmp >= 0,
                             qPrintable(QStringLiteral("column %1 row %2").arg(column).arg(row)));
            }
        }
    }
    // Count is sorted by count / limit: alice (3/5) above carol (1/100) descending.
    view->sortByColumn(SubjectsModel::Count, Qt::DescendingOrder);
    QCOMPARE(proxy->index(0, SubjectsModel::User).data().toString(), QStringLiteral("alice"));
    view->sortByColumn(SubjectsModel::User, Qt::AscendingOrder);
}

void tst_Subjects::banFromCoreShowsAsBanned()
{
    BanRequest request;
    request.user = "carol";
    request.action = "search";
    request.actor = QStringLiteral("tester");
    request.reason = QStringLiteral("scraping");
    request.durationMs = 600'000;
    bool banned = false;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) {
        QVERIFY(r.ok());
        banned = true;
    });
    QTRY_VERIFY(banned);
    QTRY_VERIFY_WITH_TIMEOUT(
        cell("carol", "search", SubjectsModel::Ban).toString().contains(QStringLiteral("scraping")),
        10000);
    QVERIFY(cell("carol", "search", SubjectsModel::Ban, SubjectsModel::BannedRole).toBool());
    QVERIFY(!cell("bobby", "search", SubjectsModel::Ban, SubjectsModel::BannedRole).toBool());
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY(summary);
    QTRY_VERIFY(summary->text().contains(QStringLiteral("1 banned")));
}

void tst_Subjects::enterOpensUser()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    QVERIFY(view);
    const int row = m_page->proxy()
                        ->mapFromSource(m_page->model()->index(sourceRow("alice", "login"), 0))
                        .row();
    QVERIFY(row >= 0);
    view->setFocus();
    view->setCurrentIndex(m_page->proxy()->index(row, SubjectsModel::User));
    QTest::keyClick(view, Qt::Key_Return);
    UserDetailDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = m_page->findChild<UserDetailDialog*>()) != nullptr);
    QCOMPARE(dialog->user(), QByteArray("alice"));
    dialog->close();
    QTRY_VERIFY(!m_page->findChild<UserDetailDialog*>());

    const QRect rect = view->visualRect(m_page->proxy()->index(row, SubjectsModel::User));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTRY_VERIFY((dialog = m_page->findChild<UserDetailDialog*>()) != nullptr);
    QCOMPARE(dialog->user(), QByteArray("alice"));
    dialog->close();
}

void tst_Subjects::screenshot()
{
    hit("mallory\nnewline-\xff", "login", 6);
    hit("émile", "search", 40);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->model()->rowCount() >= 6, 10000);
    QTest::qWait(300);
    m_page->grab().save(QStringLiteral("/tmp/tollgate-subjects.png"));
}

QTEST_MAIN(tst_Subjects)
#include "tst_Subjects.moc"
