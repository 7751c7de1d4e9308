#include "conformance/cpp/Expectations.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace tollgate::conformance {

namespace {

// A calendar time is compared within this much, so a call's own duration does not matter.
constexpr qint64 kBoundaryToleranceMs = 2000;

QString text(const QJsonValue& value)
{
    if (value.isUndefined() || value.isNull())
        return QStringLiteral("null");
    if (value.isString())
        return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::number(qint64(value.toDouble()));
    return QString::fromUtf8(value.isArray() ? QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact)
                                             : QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
}

bool isWhole(const QJsonValue& value)
{
    return value.isDouble() && value.toDouble() == std::floor(value.toDouble());
}

bool matches(const QJsonValue& want, const QJsonValue& have)
{
    if (want.isObject()) {
        const QJsonObject boundary = want.toObject();
        const qint64 period = qint64(boundary.value(QStringLiteral("until_boundary")).toDouble());
        const qint64 offset = qint64(boundary.value(QStringLiteral("utc_offset_ms")).toDouble());
        if (!isWhole(have) || period <= 0)
            return false;
        const qint64 distance =
            ((qint64(have.toDouble()) - msUntilBoundary(period, offset)) % period + period) % period;
        return std::min(distance, period - distance) <= kBoundaryToleranceMs;
    }
    if (want.isArray() && want.toArray().size() == 2) {
        const double value = have.toDouble();
        return isWhole(have) && want.toArray().at(0).toDouble() <= value &&
               value <= want.toArray().at(1).toDouble();
    }
    if (want.isNull())
        return have.isNull() || have.isUndefined();
    return want == have;
}

} // namespace

qint64 msUntilBoundary(qint64 periodMs, qint64 offsetMs)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    return periodMs - ((now + offsetMs) % periodMs + periodMs) % periodMs;
}

QString compareExpectation(const QJsonObject& expect, const QJsonObject& got)
{
    for (auto it = expect.begin(); it != expect.end(); ++it) {
        if (it.key() == QLatin1String("error") || it.key() == QLatin1String("keys_without_ttl"))
            continue;
        const QJsonValue have = got.value(it.key());
        if (!matches(it.value(), have))
            return QStringLiteral("%1 expected %2 got %3").arg(it.key(), text(it.value()), text(have));
    }
    return {};
}

} // namespace tollgate::conformance
