#pragma once

#include "tollgate/Result.h"

#include <QByteArray>

namespace tollgate::test {

// A result's error message for a failure message, empty when it succeeded: QVERIFY2 evaluates
// its message even when the check passes, where error() would throw.
template <typename T>
QByteArray whyNot(const Result<T>& result)
{
    return result ? QByteArray() : result.error().message.toUtf8();
}

} // namespace tollgate::test
