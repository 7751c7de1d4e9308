#include "ui/keys/ValueDecoding.h"

#include "ui/common/DisplayText.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/StateDecoding.h"

#include <QCoreApplication>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ValueDecoding", text);
}

QString text(const QByteArray& bytes)
{
    return KeysModel::displayBytes(bytes);
}

using Kind = KeySchema::Parsed::Kind;

bool isState(const KeySchema::Parsed& place, Algorithm algorithm)
{
    return place.kind == Kind::State && place.algorithm == algorithm;
}

// A stream: one column per field, in the order the fields first appear (newest entry first).
DecodedValue decodeStream(const Reply& entries)
{
    DecodedValue out;
    QStringList fields;
    QList<QList<QPair<QByteArray, QByteArray>>> values;
    QList<QByteArray> ids;
    for (const Reply& entry : entries.elements) {
        if (entry.elements.size() < 2)
            continue;
        ids << entry.elements[0].toBytes();
        values << entry.elements[1].toPairs();
        for (const auto& [field, value] : values.last())
            if (!fields.contains(text(field)))
                fields << text(field);
    }
    out.headers = QStringList{tr("Entry id"), tr("Time")} + fields;
    for (int i = 0; i < ids.size(); ++i) {
        QStringList row{QString::fromLatin1(ids[i]),
                        formatPreciseTime(ids[i].left(ids[i].indexOf('-')).toLongLong())};
        for (int f = 0; f < fields.size(); ++f)
            row << QString();
        for (const auto& [field, value] : values[i])
            row[2 + int(fields.indexOf(text(field)))] = text(value);
        out.rows << row;
    }
    return out;
}

DecodedValue decodeGeneric(const QByteArray& type, const Reply& items)
{
    DecodedValue out;
    if (type == "string") {
        out.headers = {tr("Value"), tr("As time")};
        out.rows << QStringList{text(items.toBytes()), timeOf(items.toBytes())};
    } else if (type == "hash") {
        out.headers = {tr("Field"), tr("Value"), tr("As time")};
        for (const auto& [field, value] : items.toPairs())
            out.rows << QStringList{text(field), text(value), timeOf(value)};
    } else if (type == "zset") {
        out.headers = {tr("Member"), tr("Score"), tr("As time")};
        for (const auto& [member, score] : items.toPairs())
            out.rows << QStringList{text(member), text(score), timeOf(score, true)};
    } else if (type == "stream") {
        return decodeStream(items);
    } else {
        out.headers = {tr("Item")};
        for (const Reply& item : items.elements)
            out.rows << QStringList{text(item.toBytes())};
    }
    return out;
}

} // namespace

QString timeOf(const QByteArray& value, bool precise)
{
    bool ok = false;
    const double number = value.toDouble(&ok);
    qint64 ms = 0;
    if (ok && number >= 1e12 && number < 1e13)
        ms = qint64(number);
    else if (ok && number >= 1e15 && number < 1e16)
        ms = qint64(number / 1000);
    else
        return {};
    return precise ? formatPreciseTime(ms) : formatTime(ms);
}

qint64 serverTimeUs(const Reply& time)
{
    if (time.elements.size() != 2)
        return 0;
    return time.elements[0].toBytes().toLongLong() * 1'000'000 +
           time.elements[1].toBytes().toLongLong();
}

std::optional<qint64> limitAt(const Policy& policy, const KeySchema::Parsed& place)
{
    if (policy.algorithm == place.algorithm)
        for (const WindowLimit& window : policy.windows)
            if (window.windowMs == place.windowMs)
                return window.limit;
    return std::nullopt;
}

Command sizeCommand(const QByteArray& type, const QByteArray& key)
{
    if (type == "string")
        return {"STRLEN", key};
    if (type == "hash")
        return {"HLEN", key};
    if (type == "zset")
        return {"ZCARD", key};
    if (type == "stream")
        return {"XLEN", key};
    if (type == "list")
        return {"LLEN", key};
    if (type == "set")
        return {"SCARD", key};
    return {};
}

Command valueCommand(const QByteArray& type, const QByteArray& key, const KeySchema::Parsed& place,
                     int maxItems)
{
    const QByteArray last = QByteArray::number(maxItems - 1);
    const QByteArray count = QByteArray::number(maxItems);
    if (type == "string")
        return {"GETRANGE", key, "0", "65535"};
    if (type == "hash" && place.kind == Kind::Stats)
        return {"HGETALL", key};
    if (type == "hash")
        return {"HSCAN", key, "0", "COUNT", count};
    if (type == "zset" && isState(place, Algorithm::SlidingLog))
        return {"ZRANGE", key, QByteArray::number(-maxItems), "-1", "WITHSCORES"};
    if (type == "zset")
        return {"ZRANGE", key, "0", last, "WITHSCORES"};
    if (type == "stream")
        return {"XREVRANGE", key, "+", "-", "COUNT", count};
    if (type == "list")
        return {"LRANGE", key, "0", last};
    if (type == "set")
        return {"SSCAN", key, "0", "COUNT", count};
    return {};
}

DecodedValue decodeValue(const QByteArray& type, const Reply& reply, const ValueContext& context)
{
    // HSCAN / SSCAN answer [cursor, items]; the others answer the items.
    const bool scanned = (type == "hash" && context.place.kind != Kind::Stats) || type == "set";
    const Reply& items = scanned && reply.elements.size() == 2 ? reply.elements[1] : reply;
    const KeySchema::Parsed& place = context.place;
    if (type == "string" && isState(place, Algorithm::FixedWindow))
        return decodeFixedWindow(items.toBytes(), context);
    if (type == "string" && isState(place, Algorithm::TokenBucket))
        return decodeTokenBucket(items.toBytes(), context);
    if (type == "zset" && isState(place, Algorithm::SlidingLog))
        return decodeSlidingLog(items.toPairs(), context);
    if (type == "hash" && isState(place, Algorithm::SlidingWindow))
        return decodeSlidingWindow(items.toPairs(), context);
    if (type == "hash" && place.kind == Kind::Stats)
        return decodeStatsRing(items.toPairs());
    return decodeGeneric(type, items);
}

} // namespace tollgate::ui
