#include "ui/keys/KeyPreview.h"

#include "ui/common/DisplayText.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/StateDecoding.h"

namespace tollgate::ui {

namespace {

constexpr int kMaxPreviewBytes = 64;
// The totals a statistics ring's summary needs (stats.lua): hits and denied.
const QList<QByteArray> kRingTotals = {"total:h", "total:d"};

using Kind = KeySchema::Parsed::Kind;

bool isState(const KeySchema::Parsed& place, Algorithm algorithm)
{
    return place.kind == Kind::State && place.algorithm == algorithm;
}

QString sizeText(const QByteArray& type, qint64 n)
{
    if (type == "hash")
        return countText(n, QStringLiteral("field"), QStringLiteral("fields"));
    if (type == "stream")
        return countText(n, QStringLiteral("entry"), QStringLiteral("entries"));
    if (type == "list")
        return countText(n, QStringLiteral("item"), QStringLiteral("items"));
    return countText(n, QStringLiteral("member"), QStringLiteral("members"));
}

QString pairsText(const QList<QPair<QByteArray, QByteArray>>& pairs)
{
    QStringList parts;
    for (const auto& [field, value] : pairs)
        parts << KeysModel::displayBytes(field) + QLatin1Char(' ') + KeysModel::displayBytes(value);
    return parts.join(QStringLiteral(", "));
}

} // namespace

Command previewCommand(const QByteArray& type, const QByteArray& key,
                       const KeySchema::Parsed& place)
{
    if (type == "string")
        return {QByteArrayLiteral("GETRANGE"), key, "0", QByteArray::number(kMaxPreviewBytes)};
    if (type == "hash" && isState(place, Algorithm::SlidingWindow))
        return {QByteArrayLiteral("HGETALL"), key}; // start, cur and prev
    if (type == "hash" && place.kind == Kind::Stats) {
        Command totals{QByteArrayLiteral("HMGET"), key};
        for (const QByteArray& field : kRingTotals)
            totals << field;
        return totals;
    }
    return sizeCommand(type, key);
}

KeyPreview previewOf(const QByteArray& type, const Reply& reply, const ValueContext& context)
{
    const KeySchema::Parsed& place = context.place;
    if (type == "string") {
        const QByteArray bytes = reply.toBytes();
        QString text = KeysModel::displayBytes(bytes.left(kMaxPreviewBytes));
        if (bytes.size() > kMaxPreviewBytes)
            text += QChar(0x2026);
        const bool counter =
            isState(place, Algorithm::FixedWindow) || isState(place, Algorithm::TokenBucket);
        const QString summary = counter ? decodeValue(type, reply, context).summary : QString();
        return summary.isEmpty() ? KeyPreview{text, text} : KeyPreview{summary, text};
    }
    if (type == "hash" && isState(place, Algorithm::SlidingWindow)) {
        const auto fields = reply.toPairs();
        return {decodeSlidingWindow(fields, context).summary, pairsText(fields)};
    }
    if (type == "hash" && place.kind == Kind::Stats) {
        QList<QPair<QByteArray, QByteArray>> totals;
        for (size_t i = 0; i < size_t(kRingTotals.size()) && i < reply.elements.size(); ++i)
            totals << qMakePair(kRingTotals[i], reply.elements[i].toBytes());
        return {decodeStatsRing(totals).summary, pairsText(totals)};
    }
    const qint64 size = reply.toInteger().value_or(0);
    const QString text = sizeText(type, size);
    if (type == "zset" && isState(place, Algorithm::SlidingLog)) {
        ValueContext sized = context;
        sized.size = size;
        return {decodeSlidingLog({}, sized).summary, text};
    }
    return {text, text};
}

} // namespace tollgate::ui
