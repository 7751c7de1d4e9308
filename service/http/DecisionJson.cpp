#include "service/http/DecisionJson.h"

#include "core/json/JsonWriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace tollgate::service {

namespace {

Error invalid(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

const char* codeName(Code code)
{
    return code == Code::Ok ? "OK" : code == Code::OverLimit ? "OVER_LIMIT" : "UNKNOWN";
}

// A JSON number or a decimal string (protobuf's JSON mapping spells 64-bit integers as strings).
std::optional<quint64> unsignedOf(const QJsonValue& value)
{
    if (value.isDouble()) {
        const double number = value.toDouble();
        if (number < 0 || number > 9.0e15 || number != double(quint64(number)))
            return std::nullopt;
        return quint64(number);
    }
    if (value.isString()) {
        bool ok = false;
        const quint64 number = value.toString().toULongLong(&ok);
        return ok ? std::optional<quint64>(number) : std::nullopt;
    }
    return std::nullopt;
}

std::optional<LimitUnit> unitOf(const QJsonValue& value)
{
    if (value.isDouble()) {
        const int number = value.toInt(-1);
        return number >= 0 && number <= 7 ? std::optional<LimitUnit>(LimitUnit(number))
                                          : std::nullopt;
    }
    return unitFromName(value.toString());
}

} // namespace

QJsonDocument jsonFromBody(QByteArray body, QJsonParseError* error)
{
    static const QByteArray bom("\xEF\xBB\xBF");
    if (body.startsWith(bom))
        body.remove(0, bom.size());
    // Outside a string the escape is as invalid as the character was: errors stay errors.
    body.replace(bom, QByteArrayLiteral("\\ufeff"));
    return QJsonDocument::fromJson(body, error);
}

Result<DecisionRequest> decisionRequestFromJson(const QByteArray& body)
{
    QJsonParseError error{};
    const QJsonDocument document = jsonFromBody(body, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return invalid(QStringLiteral("the body is not a JSON object: %1 at byte %2")
                           .arg(error.errorString())
                           .arg(error.offset));
    const QJsonObject root = document.object();
    DecisionRequest request;
    request.domain = root.value(QStringLiteral("domain")).toString().toUtf8();
    if (root.contains(QStringLiteral("hits_addend"))) {
        const auto addend = unsignedOf(root.value(QStringLiteral("hits_addend")));
        if (!addend || *addend > UINT32_MAX)
            return invalid(
                QStringLiteral("hits_addend must be a whole number from 0 to 4294967295"));
        request.hitsAddend = *addend;
    }
    const QJsonValue descriptors = root.value(QStringLiteral("descriptors"));
    if (!descriptors.isArray())
        return invalid(QStringLiteral("descriptors must be a list"));
    const QJsonArray list = descriptors.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("descriptors[%1]").arg(i);
        const QJsonObject object = list[i].toObject();
        RequestDescriptor descriptor;
        const QJsonArray entries = object.value(QStringLiteral("entries")).toArray();
        for (const QJsonValue& entry : entries) {
            const QJsonObject pair = entry.toObject();
            if (!pair.value(QStringLiteral("key")).isString() ||
                !pair.value(QStringLiteral("value")).isString())
                return invalid(where + QStringLiteral(".entries: each entry needs a key and a "
                                                      "value, both strings"));
            descriptor.entries.push_back({pair.value(QStringLiteral("key")).toString().toUtf8(),
                                          pair.value(QStringLiteral("value")).toString().toUtf8()});
        }
        if (object.contains(QStringLiteral("limit"))) {
            const QJsonObject limit = object.value(QStringLiteral("limit")).toObject();
            const auto count = unsignedOf(limit.value(QStringLiteral("requests_per_unit")));
            const auto unit = unitOf(limit.value(QStringLiteral("unit")));
            if (!count || *count > UINT32_MAX || !unit || *unit == LimitUnit::Unknown)
                return invalid(where + QStringLiteral(".limit needs requests_per_unit (0 to "
                                                      "4294967295) and a unit (SECOND ... YEAR)"));
            descriptor.limit = RateLimitSpec{*unit, qint64(*count), {}};
        }
        if (object.contains(QStringLiteral("hits_addend"))) {
            const auto addend = unsignedOf(object.value(QStringLiteral("hits_addend")));
            if (!addend)
                return invalid(where + QStringLiteral(".hits_addend must be a whole number"));
            descriptor.hitsAddend = *addend;
        }
        request.descriptors.push_back(std::move(descriptor));
    }
    return request;
}

// Members in the order QJsonDocument sorted them when these were QJsonObjects.
QByteArray decisionJson(const Decision& decision)
{
    JsonWriter out;
    out.beginObject();
    if (!decision.dynamicMetadata.isEmpty())
        out.key("dynamic_metadata").json(decision.dynamicMetadata);
    out.key("overall_code").value(codeName(decision.overall));
    out.key("statuses").beginArray();
    for (const DescriptorDecision& status : decision.statuses) {
        out.beginObject();
        if (!status.action.isEmpty()) // Tollgate's own: where to find the subject
            out.key("action").value(status.action);
        out.key("code").value(codeName(status.code));
        if (status.currentLimit) {
            out.key("current_limit")
                .beginObject()
                .key("name")
                .value(status.currentLimit->name)
                .key("requests_per_unit")
                .value(status.currentLimit->requestsPerUnit)
                .key("unit")
                .value(unitName(status.currentLimit->unit).toUpper())
                .endObject();
            const qint64 ms = std::max<qint64>(status.durationUntilResetMs, 0);
            out.key("duration_until_reset")
                .value(QByteArray::number(double(ms) / 1000.0, 'f', 3) + 's');
        }
        out.key("limit_remaining").value(status.limitRemaining);
        if (!status.action.isEmpty())
            out.key("user").value(status.user);
        out.endObject();
    }
    out.endArray().endObject();
    return out.take();
}

QByteArray hitJson(const HitResult& hit)
{
    JsonWriter out;
    out.beginObject()
        .key("allowed")
        .value(hit.allowed)
        .key("count")
        .value(hit.count)
        .key("decided_by")
        .value(decidedByName(hit.decidedBy))
        .key("limit")
        .value(hit.limit);
    if (!hit.message.isEmpty())
        out.key("message").value(hit.message);
    if (hit.appliedOverride != AppliedOverride::None)
        out.key("override").value(appliedOverrideName(hit.appliedOverride));
    if (!hit.redisError.isEmpty())
        out.key("redis_error").value(hit.redisError);
    out.key("remaining")
        .value(hit.remaining)
        .key("reset_ms")
        .value(hit.resetMs)
        .key("retry_after_ms")
        .value(hit.retryAfterMs)
        .key("shadow")
        .value(hit.shadow)
        .key("tier")
        .value(tierName(hit.tier))
        .key("would_ban")
        .value(hit.wouldBan)
        .endObject();
    return out.take();
}

} // namespace tollgate::service
