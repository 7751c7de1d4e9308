// core/redis/Result: moving the value out of a result moves it (a copy of a reply's whole tree
// per reply was what Connection paid before operator* had its non-const overloads).

#include "tollgate/Result.h"

#include <QtTest>
#include <vector>

using tollgate::Result;

class ResultTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void moveOutOfLvalueMoves();
    void moveOutOfRvalueMoves();
    void constResultCopies();
};

void ResultTest::moveOutOfLvalueMoves()
{
    Result<std::vector<int>> result(std::vector<int>(1000, 7));
    const int* storage = result->data();
    std::vector<int> taken = std::move(*result);
    QCOMPARE(taken.data(), storage); // the very buffer: moved, not copied
    QVERIFY(result->empty());
}

void ResultTest::moveOutOfRvalueMoves()
{
    Result<std::vector<int>> result(std::vector<int>(1000, 7));
    const int* storage = result->data();
    std::vector<int> taken = *std::move(result);
    QCOMPARE(taken.data(), storage);
}

void ResultTest::constResultCopies()
{
    const Result<std::vector<int>> result(std::vector<int>(3, 7));
    std::vector<int> copy = *result;
    QCOMPARE(copy.size(), size_t(3));
    QCOMPARE(result->size(), size_t(3));
}

QTEST_GUILESS_MAIN(ResultTest)
#include "tst_Result.moc"
