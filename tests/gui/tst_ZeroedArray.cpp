// The zeroed arrays behind the Subjects page's row index: all zero at first, and a large one's
// pages mapped ahead on a thread of its own while its owner writes it. Mapping must leave
// every byte as written, and freeing the array mid-way must stop the thread first.
#include "ui/common/ZeroedArray.h"
#include "ui/subjects/RowIndex.h"

#include <QTest>

using namespace tollgate::ui;

class tst_ZeroedArray : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesWhileWarmingStay()
    {
        constexpr size_t kSlots = size_t(64) << 20 >> 3; // 64 MiB of quint64
        ZeroedArray<quint64> array(kSlots);
        // Scattered writes while the warmer maps pages from the front: the ones it reaches
        // after they were written must keep their values.
        for (size_t i = 0; i < kSlots; i += 4099)
            array[i] = i + 1;
        for (size_t i = 0; i < kSlots; i += 511) {
            const quint64 expected = i % 4099 == 0 ? i + 1 : 0;
            QCOMPARE(array[i], expected);
        }
    }

    void freedMidWayStopsFirst()
    {
        // Freed at once, and replaced by move: each warmer is joined before its block goes.
        for (int round = 0; round < 8; ++round) {
            ZeroedArray<quint64> first(size_t(32) << 20 >> 3);
            first[1] = 7;
            first = ZeroedArray<quint64>(size_t(16) << 20 >> 3);
            QCOMPARE(first[1], quint64(0));
            ZeroedArray<quint64> moved(std::move(first));
            moved[2] = 9;
            QCOMPARE(moved[2], quint64(9));
        }
    }

    void indexSizedForAMillionKeepsItsRows()
    {
        RowIndex index;
        index.reserve(1'000'000); // 24 MB: warmed while the rows go in
        for (qint32 row = 0; row < 200'000; ++row)
            index.insert(quint64(row) * 0x9e3779b97f4a7c15ULL + 1, row);
        for (qint32 row = 0; row < 200'000; row += 7)
            QCOMPARE(index.value(quint64(row) * 0x9e3779b97f4a7c15ULL + 1, -2), row);
        QCOMPARE(index.value(12345, -2), -2);
    }
};

QTEST_GUILESS_MAIN(tst_ZeroedArray)
#include "tst_ZeroedArray.moc"
