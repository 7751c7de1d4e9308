// User ids of 64 KiB and more on the Subjects page (a 1 MB id is valid): the store keeps them
// whole and finds them again, so re-reads update one row instead of appending copies; they sort
// by their bytes, their cells stay short; and the blocks the ids live in are shared by the
// worker's snapshot. Then the real page over a real redis-server with a 1 MB-id counter.
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/ByteBlocks.h"
#include "ui/subjects/SubjectOrder.h"
#include "ui/subjects/SubjectStore.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"

#include <QLocale>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

Subject subject(const QByteArray& user, qint64 count)
{
    Subject s;
    s.user = user;
    s.action = "login";
    s.hasPolicy = true;
    s.stateKnown = true;
    s.state.count = count;
    s.state.limit = 10;
    return s;
}

// An id of `size` bytes ending in `last`: ids of one size differ only at their end.
QByteArray longId(qsizetype size, char last)
{
    QByteArray id(size, 'u');
    id[0] = 'L';
    id[size - 1] = last;
    return id;
}

} // namespace

class tst_SubjectsLongIds : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storeKeepsIdsWhole_data();
    void storeKeepsIdsWhole();
    void longIdsSortByTheirBytes();
    void cellsOfLongIdsStayShort();
    void blocksAreSharedByCopies();
    void pageKeepsOneRowOfAMegabyteId();
};

void tst_SubjectsLongIds::storeKeepsIdsWhole_data()
{
    QTest::addColumn<qsizetype>("size");
    QTest::newRow("0xFFFE") << qsizetype(0xFFFE);
    QTest::newRow("0xFFFF") << qsizetype(0xFFFF);
    QTest::newRow("0x10000") << qsizetype(0x10000);
    QTest::newRow("1 MiB") << (qsizetype(1) << 20);
    QTest::newRow("1 MiB + 1") << (qsizetype(1) << 20) + 1;
}

void tst_SubjectsLongIds::storeKeepsIdsWhole()
{
    QFETCH(qsizetype, size);
    SubjectStore store;
    store.apply(subject("before", 1), 0);
    const QByteArray id = longId(size, 'a');
    const QByteArray sibling = longId(size, 'b'); // the same length, another id
    // Read again and again, as sweeps, visible-row re-reads and events do.
    for (int read = 1; read <= 4; ++read) {
        store.apply(subject(id, read), 0, read % 2 ? store.beginPass() : 0);
        store.apply(subject("after", read), 0);
    }
    store.apply(subject(sibling, 7), 0);
    QCOMPARE(store.size(), 4);
    QCOMPARE(store.totals().subjects, 4);
    const int row = store.find(id, "login");
    QVERIFY(row >= 0);
    QCOMPARE(store.userId(row), id);
    QCOMPARE(store.row(row).count, 4);
    QCOMPARE(store.snapshot().user(store.row(row)), QByteArrayView(id));
    const int other = store.find(sibling, "login");
    QVERIFY(other >= 0 && other != row);
    QCOMPARE(store.userId(other), sibling);
    QCOMPARE(store.userId(store.find("before", "login")), QByteArray("before"));
    QCOMPARE(store.userId(store.find("after", "login")), QByteArray("after"));
    QCOMPARE(store.find(id.chopped(1), "login"), -1);

    store.retire({quint32(row)});
    QCOMPARE(store.find(id, "login"), -1);
    QCOMPARE(store.totals().subjects, 3);
    QCOMPARE(store.find(sibling, "login"), other);
    const auto [again, added] = store.apply(subject(id, 1), 0); // it came back: a new row
    QVERIFY(added);
    QCOMPARE(store.find(id, "login"), again);
    QCOMPARE(store.userId(again), id);
}

void tst_SubjectsLongIds::longIdsSortByTheirBytes()
{
    SubjectStore store;
    const QByteArray ids[] = {longId(1 << 20, 'z'), "m", longId(0x10000, 'a'), longId(1 << 20, 'a'),
                              "L"};
    for (const QByteArray& id : ids)
        store.apply(subject(id, 1), 0);
    OrderRequest request;
    request.sort = {SubjectsModel::User, Qt::AscendingOrder};
    const StoreSnapshot snapshot = store.snapshot();
    QList<QByteArray> sorted;
    for (quint32 row : computeOrder(snapshot, request).rows)
        sorted << snapshot.user(snapshot.rows.at(row)).toByteArray();
    QList<QByteArray> expected(std::begin(ids), std::end(ids));
    std::sort(expected.begin(), expected.end());
    QCOMPARE(sorted, expected);
}

void tst_SubjectsLongIds::cellsOfLongIdsStayShort()
{
    SubjectsModel model;
    const QByteArray id = longId(1 << 20, 'a');
    model.enqueue({subject(id, 3), subject("short", 1)});
    QTRY_COMPARE(model.rowCount(), 2);
    const int row = model.userAt(0) == id ? 0 : 1;
    const QString text = model.index(row, SubjectsModel::User).data().toString();
    QVERIFY2(text.size() < 400, qPrintable(QString::number(text.size())));
    QVERIFY(text.startsWith(QStringLiteral("Luuu")));
    QVERIFY2(text.contains(QLocale().toString(1 << 20)), qPrintable(text.right(40)));
    QVERIFY(model.index(row, SubjectsModel::User).data(Qt::ToolTipRole).toString().size() < 400);
    QCOMPARE(model.index(row, SubjectsModel::User).data(SubjectsModel::UserIdRole).toByteArray(),
             id);
    QCOMPARE(model.index(1 - row, SubjectsModel::User).data().toString(), QStringLiteral("short"));
}

void tst_SubjectsLongIds::blocksAreSharedByCopies()
{
    ByteBlocks blocks;
    const quint32 first = *blocks.append("first");
    const QByteArray large(ByteBlocks::kBlockBytes + 5, 'x'); // a block of its own
    const quint32 big = *blocks.append(large);
    const quint32 second = *blocks.append("second"); // back in the block being filled
    QCOMPARE(big & (ByteBlocks::kBlockBytes - 1), 0u);
    QCOMPARE(second >> 20, first >> 20);
    const ByteBlocks copy = blocks;
    QCOMPARE(copy.view(first, 5), QByteArrayView("first"));
    QCOMPARE(copy.view(big, large.size()), QByteArrayView(large));
    QCOMPARE(copy.view(first, 5).data(), blocks.view(first, 5).data()); // shared, not copied

    // Each appends to blocks of its own: neither overwrites what the other added.
    ByteBlocks other = copy;
    const quint32 mine = *blocks.append("mine");
    const quint32 theirs = *other.append("theirs");
    QCOMPARE(blocks.view(mine, 4), QByteArrayView("mine"));
    QCOMPARE(other.view(theirs, 6), QByteArrayView("theirs"));
    QCOMPARE(other.view(second, 6), QByteArrayView("second"));

    // A run never spans two blocks: one that does not fit starts the next block.
    ByteBlocks full;
    const QByteArray most(ByteBlocks::kBlockBytes - 3, 'm');
    const quint32 atMost = *full.append(most);
    const quint32 next = *full.append("four");
    QCOMPARE(next >> 20, (atMost >> 20) + 1);
    QCOMPARE(next & (ByteBlocks::kBlockBytes - 1), 0u);
    QCOMPARE(full.view(next, 4), QByteArrayView("four"));
}

void tst_SubjectsLongIds::pageKeepsOneRowOfAMegabyteId()
{
    test::RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    auto session = test::connectedSession(redis.url(), QStringLiteral("tester"));
    QTRY_VERIFY(session->state() == ConnectionState::Connected);
    // A fixed window of 5 a minute, then a counter written as another client would: the
    // library takes ids of up to 1,024 bytes, Redis any.
    test::hitNewPolicy(session.get(), Algorithm::FixedWindow, 5, 60'000, 0);
    const QByteArray action = algorithmCode(Algorithm::FixedWindow) + "-action";
    const QByteArray id = longId(1 << 20, 'a');
    const QByteArray key = session->schema().stateKey(id, action, Algorithm::FixedWindow, 60'000);
    QCOMPARE(redis.pipeline({{"SET", key, "3", "PX", "60000"}}, 5000).size(), 1);

    SubjectsPage page(session.get());
    page.resize(1280, 800);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    SubjectsModel* model = page.model();
    QTRY_VERIFY_WITH_TIMEOUT(model->viewRowOf(id, action) >= 0, 20000);
    QSignalSpy passes(&page, &SubjectsPage::refreshed);
    for (int pass = 1; pass <= 3; ++pass) { // sweeps, with the visible rows re-read between
        page.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(passes.count() >= pass && model->isIdle(), 20000);
    }
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->totals().subjects, 1);
    QCOMPARE(model->userAt(0), id);
    QCOMPARE(model->index(0, SubjectsModel::Count).data().toString(), QStringLiteral("3 / 5"));
}

QTEST_MAIN(tst_SubjectsLongIds)
#include "tst_SubjectsLongIds.moc"
