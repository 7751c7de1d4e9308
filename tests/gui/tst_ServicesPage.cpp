// The Services page offscreen against a real redis-server: announced instances are listed with
// their health, a stale one is greyed out, the table follows the registry on its own (every
// 2 s), unreadable entries are named, and an empty registry shows how to start an instance.

#include "core/registry/ServiceRegistry.h"
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/services/ServicesModel.h"
#include "ui/services/ServicesPage.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class ServicesPageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void listsInstancesAndGreysTheStaleOne();
    void followsTheRegistryWhileShown();
    void namesUnreadableEntries();
    void longIdAndErrorFitTheSmallScreen();
    void errorColumnSizedToItsContent();
    void emptyRegistrySaysHowToStartOne();

private:
    void announce(const QByteArray& id, const QString& host, bool ready);
    std::unique_ptr<ServicesPage> openPage();
    QString cell(ServicesPage* page, int row, int column) const;

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
};

void ServicesPageTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("tester"));
    QVERIFY(m_session->state() == ConnectionState::Connected);
}

void ServicesPageTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

void ServicesPageTest::cleanupTestCase()
{
    m_session.reset();
}

void ServicesPageTest::announce(const QByteArray& id, const QString& host, bool ready)
{
    ServiceInstance s;
    s.id = id;
    s.host = host;
    s.pid = 7;
    s.ready = ready;
    s.decisionsPerSecond = 1843.6;
    s.configDigest = QStringLiteral("9f3ac01e77b2");
    s.configFile = QStringLiteral("/etc/tollgate/tollgated.yaml");
    s.lastError = ready ? QString() : QStringLiteral("config: policy 'upload' not found");
    std::optional<bool> done;
    ServiceRegistry(m_session->client(), m_session->schema())
        .announce(s, this, [&done](Result<qint64> r) { done = r.ok(); });
    QTRY_VERIFY(done.has_value());
    QVERIFY(*done);
}

std::unique_ptr<ServicesPage> ServicesPageTest::openPage()
{
    auto page = std::make_unique<ServicesPage>(m_session.get());
    page->resize(1024, 700);
    QSignalSpy refreshed(page.get(), &ServicesPage::refreshed);
    page->show();
    if (!refreshed.wait(5000))
        qWarning("the page did not refresh");
    return page;
}

QString ServicesPageTest::cell(ServicesPage* page, int row, int column) const
{
    return page->model()->index(row, column).data().toString();
}

void ServicesPageTest::listsInstancesAndGreysTheStaleOne()
{
    announce("web-1:7:00000001", QStringLiteral("web-1"), true);
    announce("web-2:7:00000002", QStringLiteral("web-2"), false);
    announce("web-3:7:00000003", QStringLiteral("web-3"), true);
    // web-3 silent for 40 s.
    const QByteArray time = m_redis.command({"TIME"});
    const qint64 nowSeconds = time.split('\n').value(2).trimmed().toLongLong();
    QVERIFY(nowSeconds > 0);
    QVERIFY(!m_redis
                 .command({"ZADD", m_session->schema().servicesSeenKey(),
                           QByteArray::number((nowSeconds - 40) * 1000), "web-3:7:00000003"})
                 .startsWith('-'));

    auto page = openPage();
    QAbstractItemModelTester tester(page->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(page->model()->rowCount(), 3);
    QVERIFY(!page->showsEmptyState());
    QCOMPARE(cell(page.get(), 0, ServicesModel::HostColumn), QStringLiteral("web-1"));
    QCOMPARE(cell(page.get(), 0, ServicesModel::IdColumn), QStringLiteral("web-1:7:00000001"));
    QCOMPARE(cell(page.get(), 0, ServicesModel::HealthColumn), QStringLiteral("ready"));
    QCOMPARE(cell(page.get(), 1, ServicesModel::HealthColumn), QStringLiteral("not ready"));
    QCOMPARE(cell(page.get(), 1, ServicesModel::LastErrorColumn),
             QStringLiteral("config: policy 'upload' not found"));
    QCOMPARE(cell(page.get(), 1, ServicesModel::ConfigDigestColumn),
             QStringLiteral("9f3ac01e77b2"));
    QCOMPARE(cell(page.get(), 1, ServicesModel::DecisionsColumn),
             QLocale().toString(1843.6, 'f', 1));
    const QString stale = cell(page.get(), 2, ServicesModel::HealthColumn);
    QVERIFY2(stale == QStringLiteral("stale: last seen 40 s ago") ||
                 stale == QStringLiteral("stale: last seen 41 s ago"),
             qPrintable(stale));

    // Every cell of the stale row is greyed; the live rows keep the normal text colour.
    const QColor grey = QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    for (int column = 0; column < ServicesModel::ColumnCount; ++column) {
        QCOMPARE(page->model()->index(2, column).data(Qt::ForegroundRole).value<QColor>(), grey);
        QVERIFY(page->model()->index(0, column).data(Qt::ForegroundRole).value<QColor>() != grey);
    }
    auto* summary = page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QCOMPARE(summary->text(),
             QStringLiteral("3 tollgated instances: 1 ready, 1 not ready, 1 stale."));
    // The first row is selected and described in full below the table.
    auto* details = page->findChild<QLabel*>(QStringLiteral("detailsLabel"));
    QVERIFY2(details->text().contains(QStringLiteral("/etc/tollgate/tollgated.yaml (digest "
                                                     "9f3ac01e77b2)")),
             qPrintable(details->text()));
}

void ServicesPageTest::followsTheRegistryWhileShown()
{
    announce("a:1:00000001", QStringLiteral("a"), true);
    auto page = openPage();
    QTRY_COMPARE(page->model()->rowCount(), 1);
    // Nobody clicks: the 2-second refresh picks up a new instance and a withdrawn one.
    announce("b:1:00000002", QStringLiteral("b"), true);
    QTRY_COMPARE_WITH_TIMEOUT(page->model()->rowCount(), 2, 5000);
    std::optional<bool> withdrawn;
    ServiceRegistry(m_session->client(), m_session->schema())
        .withdraw("a:1:00000001", this, [&](Result<Unit> r) { withdrawn = r.ok(); });
    QTRY_VERIFY(withdrawn.has_value() && *withdrawn);
    QTRY_COMPARE_WITH_TIMEOUT(page->model()->rowCount(), 1, 5000);
    QCOMPARE(cell(page.get(), 0, ServicesModel::HostColumn), QStringLiteral("b"));
    // Hidden, it stops reading.
    page->hide();
    QSignalSpy refreshed(page.get(), &ServicesPage::refreshed);
    QTest::qWait(ServicesPage::kRefreshMs + 500);
    QCOMPARE(refreshed.count(), 0);
}

void ServicesPageTest::namesUnreadableEntries()
{
    announce("good:1:00000001", QStringLiteral("good"), true);
    QVERIFY(!m_redis.command({"HSET", m_session->schema().servicesKey(), "bad:1:1", "{"})
                 .startsWith('-'));
    auto page = openPage();
    QTRY_COMPARE(page->model()->rowCount(), 1);
    auto* status = page->findChild<QLabel*>(QStringLiteral("statusLabel"));
    QTRY_VERIFY2(status->text().contains(QStringLiteral("service bad:1:1: no last-seen time")),
                 qPrintable(status->text()));
}

void ServicesPageTest::longIdAndErrorFitTheSmallScreen()
{
    ServiceInstance s;
    s.id = QByteArray(ServiceRegistry::kMaxIdBytes, 'i');
    s.host = QString(200, QLatin1Char('h'));
    s.configFile = QLatin1Char('/') + QString(300, QLatin1Char('c'));
    s.lastError = QString(2000, QLatin1Char('e'));
    std::optional<bool> done;
    ServiceRegistry(m_session->client(), m_session->schema())
        .announce(s, this, [&done](Result<qint64> r) { done = r.ok(); });
    QTRY_VERIFY(done.has_value() && *done);
    auto page = openPage();
    QTRY_COMPARE(page->model()->rowCount(), 1);
    QVERIFY2(page->minimumSizeHint().width() <= 1024 && page->minimumSizeHint().height() <= 700,
             qPrintable(QStringLiteral("%1x%2")
                            .arg(page->minimumSizeHint().width())
                            .arg(page->minimumSizeHint().height())));
}

void ServicesPageTest::errorColumnSizedToItsContent()
{
    // No error: the column is as narrow as its header, and the cache and gRPC columns are in
    // view on the page as wide as a 1280-px window gives it.
    announce("web-1:7:00000001", QStringLiteral("web-1"), true);
    auto page = openPage();
    page->resize(1100, 700);
    QTRY_COMPARE(page->model()->rowCount(), 1);
    auto* view = page->findChild<QTableView*>(QStringLiteral("servicesTableView"));
    QHeaderView* header = view->horizontalHeader();
    const int error = ServicesModel::LastErrorColumn;
    QTRY_COMPARE(header->sectionSize(error), header->sectionSizeHint(error));
    for (int column : {int(ServicesModel::CacheEntriesColumn), int(ServicesModel::CacheSizeColumn),
                       int(ServicesModel::CacheHitsColumn), int(ServicesModel::GrpcColumn)}) {
        const int right = header->sectionViewportPosition(column) + header->sectionSize(column);
        QVERIFY2(right <= view->viewport()->width(),
                 qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                                .arg(column)
                                .arg(right)
                                .arg(view->viewport()->width())));
    }
    // A long error is cut at a width that keeps them in view; its tooltip has all of it.
    announce("web-2:7:00000002", QStringLiteral("web-2"), false);
    ServiceInstance s;
    s.id = "web-3:7:00000003";
    s.host = QStringLiteral("web-3");
    s.lastError = QStringLiteral("redis: ") + QString(400, QLatin1Char('x'));
    std::optional<bool> done;
    ServiceRegistry(m_session->client(), m_session->schema())
        .announce(s, this, [&done](Result<qint64> r) { done = r.ok(); });
    QTRY_VERIFY(done.has_value() && *done);
    QTRY_COMPARE_WITH_TIMEOUT(page->model()->rowCount(), 3, 5000);
    QTRY_VERIFY(header->sectionSize(error) > header->sectionSizeHint(error));
    QVERIFY(header->sectionSize(error) <= view->fontMetrics().averageCharWidth() * 40);
    const int row = cell(page.get(), 0, ServicesModel::HostColumn) == QStringLiteral("web-3")   ? 0
                    : cell(page.get(), 1, ServicesModel::HostColumn) == QStringLiteral("web-3") ? 1
                                                                                                : 2;
    QCOMPARE(page->model()->index(row, error).data(Qt::ToolTipRole).toString(), s.lastError);
}

void ServicesPageTest::emptyRegistrySaysHowToStartOne()
{
    auto page = openPage();
    QTRY_VERIFY(page->showsEmptyState());
    QCOMPARE(page->model()->rowCount(), 0);
    auto* empty = page->findChild<QLabel*>(QStringLiteral("emptyStateLabel"));
    QVERIFY(empty && empty->isVisible());
    QVERIFY2(empty->text().contains(QStringLiteral("tollgated --config FILE --url URL")),
             qPrintable(empty->text()));
    QVERIFY(!page->findChild<QTableView*>(QStringLiteral("servicesTableView"))->isVisible());
    // The first announce replaces it with the table.
    announce("late:1:00000001", QStringLiteral("late"), true);
    QTRY_VERIFY_WITH_TIMEOUT(!page->showsEmptyState(), 5000);
    QCOMPARE(page->model()->rowCount(), 1);
}

QTEST_MAIN(ServicesPageTest)
#include "tst_ServicesPage.moc"
