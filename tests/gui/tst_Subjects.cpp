// The subjects page against a real redis-server: subjects appear after hits through the core
// Limiter, their TTL counts down on screen, filter and sort (off the GUI thread) work, bans
// show, thousands of subjects stream in batch by batch with totals over all of them, and the
// model passes QAbstractItemModelTester.
#include "tests/gui/SubjectsPageFixture.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/Palette.h"
#include "ui/common/Session.h"
#include "ui/subjects/SubjectsLoader.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"
#include "ui/user/UserDetailDialog.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QTableView>
#include <QRegularExpression>
#include <QtTest>
#include <memory>

using namespace tollgate;
using namespace tollgate::ui;

class tst_Subjects : public test::SubjectsPageFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void subjectAppearsAndTtlCountsDown();
    void filterNarrowsRows();
    void sortByAnyColumn();
    void banFromCoreShowsAsBanned();
    void sweepIsNotLoading();
    void stateFilterAndExactFind();
    void enterOpensUser();
    void manySubjectsStreamUncapped();
    void vanishedRowsLeave();
    void screenshot();

private:
    // Every row of `column` is in `order` by SortRole.
    void verifySorted(int column, Qt::SortOrder order);
};

void tst_Subjects::initTestCase()
{
    startServer(QStringLiteral("tester"));
    const std::pair<QByteArray, WindowLimit> definitions[] = {{"login", {5, 60'000}},
                                                              {"search", {100, 30'000}}};
    for (const auto& [action, window] : definitions) {
        Policy policy;
        policy.action = action;
        policy.windows = {window};
        savePolicy(policy);
    }
    showPage(1280, 800); // its model watched from the first refresh on
}

void tst_Subjects::cleanupTestCase()
{
    stopFixture();
}

void tst_Subjects::verifySorted(int column, Qt::SortOrder order)
{
    SubjectsModel* model = m_page->model();
    for (int row = 1; row < model->rowCount(); ++row) {
        const QVariant a = model->index(row - 1, column).data(SubjectsModel::SortRole);
        const QVariant b = model->index(row, column).data(SubjectsModel::SortRole);
        const auto c = QVariant::compare(a, b);
        const int cmp = c == QPartialOrdering::Less ? -1 : c == QPartialOrdering::Greater ? 1 : 0;
        if (a.typeId() == QMetaType::QString)
            QVERIFY(order == Qt::AscendingOrder
                        ? a.toString().compare(b.toString(), Qt::CaseInsensitive) <= 0
                        : a.toString().compare(b.toString(), Qt::CaseInsensitive) >= 0);
        else
            QVERIFY2(order == Qt::AscendingOrder ? cmp <= 0 : cmp >= 0,
                     qPrintable(QStringLiteral("column %1 row %2").arg(column).arg(row)));
    }
}

void tst_Subjects::subjectAppearsAndTtlCountsDown()
{
    hit("alice", "login", 3);
    QTRY_VERIFY_WITH_TIMEOUT(viewRow("alice", "login") >= 0, 10000);
    QTRY_COMPARE(cell("alice", "login", SubjectsModel::Count).toString(), QStringLiteral("3 / 5"));
    QCOMPARE(cell("alice", "login", SubjectsModel::Remaining).toLongLong(), 2);

    // The TTL sorts by its deadline (what the worker sorts by), not by "now minus something".
    const qint64 deadline =
        cell("alice", "login", SubjectsModel::Ttl, SubjectsModel::SortRole).toLongLong();
    const qint64 left = deadline - QDeadlineTimer::current().deadline();
    const QString firstText = cell("alice", "login", SubjectsModel::Ttl).toString();
    QVERIFY2(left > 50'000 && left <= 60'000, qPrintable(QString::number(left)));
    // Goes down between refreshes too: the page repaints it from the stored deadline.
    QTRY_VERIFY(cell("alice", "login", SubjectsModel::Ttl).toString() != firstText);
}

void tst_Subjects::filterNarrowsRows()
{
    hit("bob", "login", 1);
    hit("bobby", "search", 2);
    hit("carol", "search", 1);
    QTRY_VERIFY_WITH_TIMEOUT(viewRow("carol", "search") >= 0 && viewRow("bobby", "search") >= 0 &&
                                 viewRow("bob", "login") >= 0,
                             10000);
    SubjectsModel* model = m_page->model();
    const int all = model->rowCount();
    QVERIFY(all >= 4);

    auto* filter = m_page->findChild<QLineEdit*>(QStringLiteral("filterLineEdit"));
    QVERIFY(filter);
    QTest::keyClicks(filter, QStringLiteral("BOB"));
    QTRY_COMPARE(model->rowCount(), 2); // filtered on a worker, swapped in at once

    auto* actions = m_page->findChild<QComboBox*>(QStringLiteral("actionComboBox"));
    QVERIFY(actions);
    QTRY_VERIFY(actions->findData(QByteArray("search")) > 0);
    actions->setCurrentIndex(actions->findData(QByteArray("search")));
    QTRY_COMPARE(model->rowCount(), 1);
    QCOMPARE(model->index(0, SubjectsModel::User).data().toString(), QStringLiteral("bobby"));

    filter->clear();
    QTRY_COMPARE(model->rowCount(), 2); // bobby and carol on "search"
    actions->setCurrentIndex(0);
    QTRY_COMPARE(model->rowCount(), all);
}

void tst_Subjects::sortByAnyColumn()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    QVERIFY(view);
    SubjectsModel* model = m_page->model();
    QTRY_VERIFY(model->rowCount() >= 4);
    for (int column = 0; column < SubjectsModel::ColumnCount; ++column) {
        for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            QSignalSpy applied(model, &SubjectsModel::orderApplied);
            view->sortByColumn(column, order);
            QTRY_VERIFY(applied.count() >= 1 && model->isIdle());
            verifySorted(column, order);
        }
    }
    // Count is sorted by count / limit: alice (3/5) above carol (1/100) descending.
    view->sortByColumn(SubjectsModel::Count, Qt::DescendingOrder);
    QTRY_COMPARE(model->index(0, SubjectsModel::User).data().toString(), QStringLiteral("alice"));
    view->sortByColumn(SubjectsModel::User, Qt::AscendingOrder);
    QTRY_VERIFY(model->isIdle());
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
    // The ban's story, not the counter's: nothing remains, the countdown is to the ban's end
    // (10 minutes, not the 30 s window), and since when.
    QCOMPARE(cell("carol", "search", SubjectsModel::Remaining).toLongLong(), 0);
    const QString ends = cell("carol", "search", SubjectsModel::Ttl).toString();
    QVERIFY2(ends.startsWith(QStringLiteral("9m")) || ends.startsWith(QStringLiteral("10m")),
             qPrintable(ends));
    QVERIFY2(cell("carol", "search", SubjectsModel::Since).toString().contains(QLatin1Char(':')),
             qPrintable(cell("carol", "search", SubjectsModel::Since).toString()));
    // Ban text in the palette's own shade: readable on a light and on a dark desktop.
    const QPalette light = QApplication::palette();
    QCOMPARE(cell("carol", "search", SubjectsModel::Count, Qt::ForegroundRole).value<QColor>(),
             toneColor(Tone::Denied, light));
    QApplication::setPalette(darkPalette());
    QCOMPARE(cell("carol", "search", SubjectsModel::Count, Qt::ForegroundRole).value<QColor>(),
             toneColor(Tone::Denied, darkPalette()));
    QVERIFY(toneColor(Tone::Denied, darkPalette()) != toneColor(Tone::Denied, light));
    QApplication::setPalette(light);
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY(summary);
    QTRY_VERIFY(summary->text().contains(QStringLiteral("1 banned")));
}

void tst_Subjects::sweepIsNotLoading()
{
    SubjectsLoader* loader = m_page->loader();
    QTRY_VERIFY(loader->firstPassDone());
    // A slow sweep (2 keys a SCAN, paced to 20 commands a second) runs for seconds.
    SubjectsLoader::Options slow = loader->options();
    const SubjectsLoader::Options kept = slow;
    slow.scanCount = 2;
    slow.steadyCommandsPerSecond = 20;
    slow.sweepRest = std::chrono::milliseconds(50);
    loader->setOptions(slow);
    QSignalSpy progress(loader, &SubjectsLoader::progress);
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    int sweeping = 0; // samples taken while a sweep was under way
    for (int i = 0; i < 80 && sweeping < 10; ++i) {
        QTest::qWait(50);
        if (!loader->isRunning())
            continue;
        ++sweeping;
        QVERIFY2(!summary->text().contains(QStringLiteral("loading")), qPrintable(summary->text()));
    }
    QVERIFY(sweeping >= 10);
    loader->setOptions(kept);
}

void tst_Subjects::stateFilterAndExactFind()
{
    // carol is banned (previous test): the Count column says so instead of "1 / 100".
    QTRY_VERIFY(cell("carol", "search", SubjectsModel::Count)
                    .toString()
                    .startsWith(QStringLiteral("banned until ")));
    const QString banText = cell("carol", "search", SubjectsModel::Count).toString();
    QVERIFY(banText.contains(QStringLiteral("by tester")));
    // At 1280 px the whole sentence fits its column (no "banned until 14:02 by te…"). The
    // column is sized for a ban that ends today: one that ends tomorrow (a run near midnight)
    // shows its date and may elide, in full in the tooltip.
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    if (!banText.contains(QRegularExpression(QStringLiteral("\\d{4}-\\d{2}-\\d{2}"))))
        QVERIFY(view->fontMetrics().horizontalAdvance(banText) + 12 <=
                view->columnWidth(SubjectsModel::Count));
    auto* state = m_page->findChild<QComboBox*>(QStringLiteral("stateComboBox"));
    QVERIFY(state);
    state->setCurrentIndex(state->findData(int(SubjectFilter::State::Banned)));
    QTRY_COMPARE(m_page->model()->rowCount(), 1);
    QCOMPARE(m_page->model()->userAt(0), QByteArray("carol"));
    state->setCurrentIndex(0);
    QTRY_VERIFY(m_page->model()->rowCount() > 1);

    // A user the page has not read yet (no pass since): an exact id is addressed directly.
    m_page->loader()->stop();
    hit("zed-exact", "login", 2);
    auto* filter = m_page->findChild<QLineEdit*>(QStringLiteral("filterLineEdit"));
    QTest::keyClicks(filter, QStringLiteral("zed-exact"));
    QTRY_COMPARE(m_page->model()->rowCount(), 1);
    QTRY_COMPARE(cell("zed-exact", "login", SubjectsModel::Count).toString(),
                 QStringLiteral("2 / 5"));
    filter->clear();
    QTRY_VERIFY(m_page->model()->rowCount() > 1);
    m_page->refresh();
}

void tst_Subjects::enterOpensUser()
{
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    QVERIFY(view);
    const int row = viewRow("alice", "login");
    QVERIFY(row >= 0);
    view->setFocus();
    view->setCurrentIndex(m_page->model()->index(row, SubjectsModel::User));
    QTest::keyClick(view, Qt::Key_Return);
    UserDetailDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = m_page->findChild<UserDetailDialog*>()) != nullptr);
    QCOMPARE(dialog->user(), QByteArray("alice"));
    dialog->close();
    QTRY_VERIFY(!m_page->findChild<UserDetailDialog*>());

    const QRect rect = view->visualRect(m_page->model()->index(row, SubjectsModel::User));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTRY_VERIFY((dialog = m_page->findChild<UserDetailDialog*>()) != nullptr);
    QCOMPARE(dialog->user(), QByteArray("alice"));
    dialog->close();
}

void tst_Subjects::manySubjectsStreamUncapped()
{
    // 3,000 counters written behind the page's back, then a fresh first pass.
    QList<QList<QByteArray>> commands;
    const KeySchema schema;
    for (int i = 0; i < 3000; ++i)
        commands.append({"SET",
                         schema.stateKey("bulk" + QByteArray::number(i), "search",
                                         Algorithm::FixedWindow, 30'000),
                         QByteArray::number(i % 100 + 1), "PX", "60000"});
    QCOMPARE(m_redis.pipeline(commands, 30000).size(), 3000);
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    view->sortByColumn(SubjectsModel::Count, Qt::DescendingOrder);
    QTRY_VERIFY(m_page->model()->isIdle());

    QSignalSpy batches(m_page->loader(), &SubjectsLoader::batch);
    QSignalSpy passes(m_page.get(), &SubjectsPage::refreshed);
    SubjectsLoader::Options options = m_page->loader()->options();
    options.scanCount = 500; // several batches even on this small keyspace
    m_page->loader()->setOptions(options);
    m_page->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(passes.count() >= 1 && m_page->model()->isIdle(), 20000);
    QVERIFY2(batches.count() > 2, "rows arrive batch by batch");
    // Every subject, each once; totals over all of them.
    QVERIFY(m_page->model()->totals().subjects >= 3000);
    QCOMPARE(qint64(m_page->model()->rowCount()), m_page->model()->totals().subjects);
    // Rows that arrived after the sort were put in place when the pass ended.
    verifySorted(SubjectsModel::Count, Qt::DescendingOrder);
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY(summary->text().contains(QLocale().toString(m_page->model()->totals().subjects)));
    view->sortByColumn(SubjectsModel::User, Qt::AscendingOrder);
    QTRY_VERIFY(m_page->model()->isIdle());
}

void tst_Subjects::vanishedRowsLeave()
{
    hit("ghost", "login", 2);
    hit("ghost2", "login", 1);
    QTRY_VERIFY_WITH_TIMEOUT(viewRow("ghost", "login") >= 0 && viewRow("ghost2", "login") >= 0,
                             10000);
    QTRY_VERIFY(m_page->model()->isIdle());
    const qint64 before = m_page->model()->totals().subjects;
    // Deleted behind the page's back (as an expiry would): the next full pass no longer
    // finds them, and they leave the table and the totals. A selected row stays selected.
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("subjectsTableView"));
    view->setCurrentIndex(m_page->model()->index(viewRow("alice", "login"), SubjectsModel::User));
    const KeySchema schema;
    QCOMPARE(
        m_redis
            .pipeline({{"DEL", schema.stateKey("ghost", "login", Algorithm::FixedWindow, 60'000),
                        schema.stateKey("ghost2", "login", Algorithm::FixedWindow, 60'000)}},
                      5000)
            .size(),
        1);
    QSignalSpy passes(m_page.get(), &SubjectsPage::refreshed);
    m_page->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(passes.count() >= 1 && m_page->model()->isIdle(), 20000);
    QCOMPARE(viewRow("ghost", "login"), -1);
    QCOMPARE(viewRow("ghost2", "login"), -1);
    QCOMPARE(m_page->model()->totals().subjects, before - 2);
    QCOMPARE(qint64(m_page->model()->rowCount()), m_page->model()->totals().subjects);
    QCOMPARE(m_page->model()->userAt(view->currentIndex().row()), QByteArray("alice"));
    // Back when it has a counter again: a new row, found by the next pass.
    hit("ghost", "login", 1);
    m_page->refresh();
    QTRY_VERIFY_WITH_TIMEOUT(viewRow("ghost", "login") >= 0, 20000);
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
