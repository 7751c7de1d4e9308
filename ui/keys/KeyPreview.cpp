#include "ui/keys/KeyPreview.h"

#include "tollgate/Moderation.h"

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

bool isBan(const KeySchema::Parsed& place)
{
    return place.kind == Kind::ActionBan || place.kind == Kind::UserBan;
}

// "banned until 2026-12-02 14:05:00 by support-lena: spam", read as the console reads a ban
// (Moderation::banFromFields); a hash without a numeric until_ms is what hit.lua refuses as
// corrupt, so it says so.
QString banText(const QList<QPair<QByteArray, QByteArray>>& fields)
{
    bool valid = false;
    fields.value(0).second.toLongLong(&valid); // until_ms, kBanFields' first
    if (!valid)
        return QObject::tr("not a ban: no numeric until_ms");
    const BanInfo ban = Moderation::banFromFields({}, fields);
    QString text = ban.untilMs > 0 ? QObject::tr("banned until %1").arg(formatTime(ban.untilMs))
                                   : QObject::tr("banned permanently");
    if (!ban.actor.isEmpty())
        text += QObject::tr(" by %1").arg(KeysModel::displayBytes(ban.actor.toUtf8()));
    if (ban.source == QLatin1String("auto"))
        text += QObject::tr(" (auto)");
    if (!ban.reason.isEmpty())
        text += QStringLiteral(": ") + KeysModel::displayBytes(ban.reason.toUtf8());
    return text;
}

const QList<QByteArray> kBanFields = {"until_ms", "actor", "reason", "source"};

// HMGET's values beside the fields it asked for.
QList<QPair<QByteArray, QByteArray>> named(const QList<QByteArray>& fields, const Reply& reply)
{
    QList<QPair<QByteArray, QByteArray>> pairs;
    for (size_t i = 0; i < size_t(fields.size()) && i < reply.elements.size(); ++i)
        pairs << qMakePair(fields[qsizetype(i)], reply.elements[i].toBytes());
    return pairs;
}

} // namespace

std::vector<Command> previewCommands(const QByteArray& type, const QByteArray& key,
                                     const KeySchema::Parsed& place, qint64 serverNowUs)
{
    auto hmget = [&key](const QList<QByteArray>& fields) {
        Command command{QByteArrayLiteral("HMGET"), key};
        for (const QByteArray& field : fields)
            command << field;
        return std::vector<Command>{command};
    };
    if (type == "string")
        return {{QByteArrayLiteral("GETRANGE"), key, "0", QByteArray::number(kMaxPreviewBytes)}};
    if (type == "hash" && isState(place, Algorithm::SlidingWindow))
        return {{QByteArrayLiteral("HGETALL"), key}}; // start, cur and prev
    if (type == "hash" && place.kind == Kind::Stats)
        return hmget(kRingTotals);
    if (type == "hash" && isBan(place))
        return hmget(kBanFields);
    if (type == "zset" && isState(place, Algorithm::SlidingLog) && serverNowUs > 0) {
        const QByteArray cut = QByteArray::number(serverNowUs - place.windowMs * 1000);
        return {sizeCommand(type, key),
                {QByteArrayLiteral("ZRANGE"), key, "-1", "-1", "WITHSCORES"},
                {QByteArrayLiteral("ZRANGE"), key, cut, "-inf", "BYSCORE", "REV", "LIMIT", "0",
                 "1", "WITHSCORES"}};
    }
    const Command size = sizeCommand(type, key);
    return size.isEmpty() ? std::vector<Command>{} : std::vector<Command>{size};
}

KeyPreview previewOf(const QByteArray& type, const std::vector<Reply>& replies,
                     const ValueContext& context)
{
    if (replies.empty())
        return {};
    const Reply& reply = replies.front();
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
        const auto totals = named(kRingTotals, reply);
        return {decodeStatsRing(totals).summary, pairsText(totals)};
    }
    if (type == "hash" && isBan(place)) {
        const auto fields = named(kBanFields, reply);
        return {banText(fields), pairsText(fields)};
    }
    const qint64 size = reply.toInteger().value_or(0);
    const QString text = sizeText(type, size);
    if (type == "zset" && isState(place, Algorithm::SlidingLog)) {
        ValueContext sized = context;
        sized.size = size;
        if (replies.size() < 3)
            return {decodeSlidingLog({}, sized).summary, text};
        // The window's start's newest member (if any), then the newest: all the count takes.
        auto members = replies[2].toPairs();
        for (const auto& newest : replies[1].toPairs())
            if (members.isEmpty() || members.last() != newest)
                members << newest;
        sized.size = members.size(); // what decides is all here
        return {decodeSlidingLog(members, sized).summary, text};
    }
    return {text, text};
}

} // namespace tollgate::ui
