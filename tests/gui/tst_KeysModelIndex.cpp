// The Keys table's key index, sized from DBSIZE on a worker (filling it on the GUI thread
// stalled the first scan of a million keys by 100 ms): keys added before the sized index
// arrives are found in it afterwards, and a key SCAN returns twice is still listed once.

#include "ui/keys/KeysModel.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace tollgate::ui;

namespace {

QList<QByteArray> keys(int first, int count)
{
    QList<QByteArray> out;
    for (int i = first; i < first + count; ++i)
        out << "tg:{u" + QByteArray::number(i) + "}:like:fw:60000";
    return out;
}

} // namespace

class KeysModelIndexTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keysBeforeTheSizedIndexAreFoundInIt();
    void clearDropsAnIndexStillBeingFilled();
};

void KeysModelIndexTest::keysBeforeTheSizedIndexAreFoundInIt()
{
    KeysModel model;
    QAbstractItemModelTester tester(&model);
    model.reserve(200'000);
    model.append(keys(0, 3000)); // before the worker's index is in (it needs the event loop)
    QCOMPARE(model.rowCount(), 3000);
    QTest::qWait(200);              // the sized index arrives and takes the 3,000 keys
    model.append(keys(2000, 3000)); // 1,000 known, 2,000 new
    QCOMPARE(model.rowCount(), 5000);
    for (int i : {0, 1999, 2999, 4999})
        QCOMPARE(model.rowOf(keys(i, 1).first()), i);
    model.append(keys(0, 5000)); // all known
    QCOMPARE(model.rowCount(), 5000);
}

void KeysModelIndexTest::clearDropsAnIndexStillBeingFilled()
{
    KeysModel model;
    model.reserve(200'000);
    model.clear(); // a new scan: the index for the old one must not come back
    model.append(keys(0, 10));
    QTest::qWait(200);
    model.append(keys(5, 10));
    QCOMPARE(model.rowCount(), 15);
    QCOMPARE(model.rowOf(keys(14, 1).first()), 14);
    QCOMPARE(model.rowOf(keys(15, 1).first()), -1);
}

QTEST_MAIN(KeysModelIndexTest)
#include "tst_KeysModelIndex.moc"
