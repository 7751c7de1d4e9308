#include "service/http/DecisionJson.h"

#include <QJsonArray>
#include <QJsonDocument>

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

Result<DecisionRequest> decisionRequestFromJson(const QByteArray& body)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
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
            return invalid(QStringLiteral("hits_addend must be a whole number from 0 to 4294967295"));
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

QJsonObject decisionToJson(const Decision& decision)
{
    QJsonArray statuses;
    for (const DescriptorDecision& status : decision.statuses) {
        QJsonObject object{{QStringLiteral("code"), QLatin1String(codeName(status.code))},
                           {QStringLiteral("limit_remaining"), status.limitRemaining}};
        if (status.currentLimit) {
            object.insert(QStringLiteral("current_limit"),
                          QJsonObject{{QStringLiteral("requests_per_unit"),
                                       status.currentLimit->requestsPerUnit},
                                      {QStringLiteral("unit"),
                                       unitName(status.currentLimit->unit).toUpper()},
                                      {QStringLiteral("name"), status.currentLimit->name}});
            const QString seconds =
                QString::number(std::max<qint64>(status.durationUntilResetMs, 0) / 1000.0, 'f', 3);
            object.insert(QStringLiteral("duration_until_reset"), QString(seconds + QLatin1Char('s')));
        }
        if (!status.action.isEmpty()) { // Tollgate's own: where to find the subject
            object.insert(QStringLiteral("action"), QString::fromUtf8(status.action));
            object.insert(QStringLiteral("user"), QString::fromUtf8(status.user));
        }
        statuses.append(object);
    }
    return {{QStringLiteral("overall_code"), QLatin1String(codeName(decision.overall))},
            {QStringLiteral("statuses"), statuses}};
}

QJsonObject hitToJson(const HitResult& hit)
{
    QJsonObject object{{QStringLiteral("allowed"), hit.allowed},
                       {QStringLiteral("tier"), tierName(hit.tier)},
                       {QStringLiteral("count"), hit.count},
                       {QStringLiteral("limit"), hit.limit},
                       {QStringLiteral("remaining"), hit.remaining},
                       {QStringLiteral("reset_ms"), hit.resetMs},
                       {QStringLiteral("retry_after_ms"), hit.retryAfterMs},
                       {QStringLiteral("shadow"), hit.shadow},
                       {QStringLiteral("would_ban"), hit.wouldBan},
                       {QStringLiteral("decided_by"), decidedByName(hit.decidedBy)}};
    if (hit.appliedOverride != AppliedOverride::None)
        object.insert(QStringLiteral("override"), appliedOverrideName(hit.appliedOverride));
    if (!hit.message.isEmpty())
        object.insert(QStringLiteral("message"), hit.message);
    if (!hit.redisError.isEmpty())
        object.insert(QStringLiteral("redis_error"), hit.redisError);
    return object;
}

} // namespace tollgate::service
