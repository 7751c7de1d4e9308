// The Keys page sorts by name and by TTL from its header (KeysModel::sort): against a real
// redis-server the soonest end comes first and keys without a TTL after it; at 200,000 rows the
// sort leaves the GUI thread free and keeps the selection on its key.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class KeysSortTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void headerSortsByTtlAndName();
    void otherColumnsKeepTheOrder();
    void largeSortRunsOffTheGuiThread();

private:
    QStringList shownKeys() const;
    void clickHeader(int column);

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<KeysPage> m_page;
    QTableView* m_table = nullptr;
};

void KeysSortTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    // Names against their ends: neither order is the other, nor SCAN's by chance.
    m_redis.command({"SET", "tg:b", "1", "PX", "50000"});
    m_redis.command({"SET", "tg:d", "1"});
    m_redis.command({"SET", "tg:a", "1", "PX", "10000"});
    m_redis.command({"SET", "tg:c", "1", "PX", "30000"});
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);
    m_page = std::make_unique<KeysPage>(m_session.get());
    new QAbstractItemModelTester(
        m_page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest, m_page.get());
    m_page->resize(1280, 800);
    m_page->show();
    m_table = m_page->findChild<QTableView*>(QStringLiteral("keysTableView"));
    QTRY_COMPARE(m_page->model()->rowCount(), 4);
    QTRY_VERIFY(!m_page->isScanning());
    for (int row = 0; row < 4; ++row) // every TTL read (the rows are on screen)
        QTRY_VERIFY(m_page->model()->row(row).pttl != -3);
}

void KeysSortTest::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

QStringList KeysSortTest::shownKeys() const
{
    QStringList keys;
    for (int row = 0; row < m_page->model()->rowCount(); ++row)
        keys << QString::fromUtf8(m_page->model()->key(row));
    return keys;
}

void KeysSortTest::clickHeader(int column)
{
    QHeaderView* header = m_table->horizontalHeader();
    const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                    header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
}

void KeysSortTest::headerSortsByTtlAndName()
{
    const QStringList byTtl{QStringLiteral("tg:a"), QStringLiteral("tg:c"), QStringLiteral("tg:b"),
                            QStringLiteral("tg:d")};
    clickHeader(KeysModel::TtlColumn);
    QTRY_COMPARE(shownKeys(), byTtl);
    QCOMPARE(m_page->findChild<QLabel*>(QStringLiteral("scanStatusLabel"))->text(),
             QStringLiteral("4 keys, sorted by TTL"));
    clickHeader(KeysModel::TtlColumn); // descending: no TTL first, the soonest end last
    QTRY_COMPARE(shownKeys(), (QStringList{byTtl[3], byTtl[2], byTtl[1], byTtl[0]}));

    clickHeader(KeysModel::KeyColumn);
    QTRY_COMPARE(shownKeys(), (QStringList{QStringLiteral("tg:a"), QStringLiteral("tg:b"),
                                           QStringLiteral("tg:c"), QStringLiteral("tg:d")}));
    // Details keep following their key: the row that shows tg:a has tg:a's TTL.
    const int a = m_page->model()->rowOf("tg:a");
    QCOMPARE(a, 0);
    QVERIFY(m_page->model()->row(a).pttl > 0 && m_page->model()->row(a).pttl <= 10000);
    QCOMPARE(m_page->model()->data(m_page->model()->index(3, KeysModel::TtlColumn)).toString(),
             QStringLiteral("no TTL"));
}

void KeysSortTest::otherColumnsKeepTheOrder()
{
    clickHeader(KeysModel::KeyColumn);
    QTRY_VERIFY(!m_page->model()->isSorting());
    const QStringList before = shownKeys();
    const int column = m_table->horizontalHeader()->sortIndicatorSection();
    clickHeader(KeysModel::TypeColumn);
    QTest::qWait(100);
    QCOMPARE(shownKeys(), before);
    QCOMPARE(m_table->horizontalHeader()->sortIndicatorSection(), column);
}

void KeysSortTest::largeSortRunsOffTheGuiThread()
{
    KeysModel model;
    QAbstractItemModelTester tester(&model);
    QList<QByteArray> keys;
    for (int i = 0; i < 200'000; ++i) // arrival order: the reverse of the names'
        keys << "tg:{u" + QByteArray::number(999'999 - i) + "}:like:fw:60000";
    model.append(keys);
    QTableView view;
    view.setModel(&model);
    view.selectRow(5);
    QSignalSpy sorted(&model, &KeysModel::sorted);
    QElapsedTimer clock;
    clock.start();
    model.sort(KeysModel::KeyColumn, Qt::AscendingOrder);
    // The snapshot is taken here, the comparisons happen elsewhere.
    QVERIFY2(clock.elapsed() < 50, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(model.isSorting());
    model.append({"tg:{a-late-key}"}); // found while it sorts: after the sorted rows
    QVERIFY(sorted.wait(10'000));
    QCOMPARE(model.rowCount(), 200'001);
    QCOMPARE(model.key(0), keys.last());
    QCOMPARE(model.key(199'999), keys.first());
    QCOMPARE(model.key(200'000), QByteArray("tg:{a-late-key}"));
    QCOMPARE(view.selectionModel()->selectedRows().value(0).row(), 199'999 - 5); // same key
    QCOMPARE(model.rowOf(keys[5]), 199'999 - 5);
    model.sort(-1); // back to arrival order
    QCOMPARE(model.key(0), keys.first());

    // By TTL with none read yet: all of them last, in the order they came.
    model.sort(KeysModel::TtlColumn, Qt::AscendingOrder);
    QVERIFY(sorted.wait(10'000));
    QCOMPARE(model.unreadTtlsInSort(), 200'001);
    QCOMPARE(model.key(0), keys.first());
}

QTEST_MAIN(KeysSortTest)
#include "tst_KeysSort.moc"
