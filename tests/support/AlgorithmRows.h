#pragma once

// A `_data()` table with one row per algorithm (column "algorithm"), for tests that run the
// same checks on each.

#include "tollgate/Policy.h"

#include <QtTest>

Q_DECLARE_METATYPE(tollgate::Algorithm)

namespace tollgate::test {

inline void algorithmRows()
{
    QTest::addColumn<Algorithm>("algorithm");
    QTest::newRow("fixed_window") << Algorithm::FixedWindow;
    QTest::newRow("sliding_log") << Algorithm::SlidingLog;
    QTest::newRow("sliding_window") << Algorithm::SlidingWindow;
    QTest::newRow("token_bucket") << Algorithm::TokenBucket;
}

} // namespace tollgate::test
