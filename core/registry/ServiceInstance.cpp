// The payload of a registry entry: one table of the JSON fields, read by toJson and fromJson.
#include "core/registry/ServiceRegistry.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <variant>

namespace tollgate {

namespace {

using Member = std::variant<QString ServiceInstance::*, qint64 ServiceInstance::*,
                            double ServiceInstance::*, bool ServiceInstance::*>;

struct JsonField
{
    const char* name;
    Member member;
};

// lua/README.md, "Service registry", lists the same fields.
const JsonField kFields[] = {
    {"host", &ServiceInstance::host},
    {"pid", &ServiceInstance::pid},
    {"version", &ServiceInstance::version},
    {"config_file", &ServiceInstance::configFile},
    {"config_digest", &ServiceInstance::configDigest},
    {"grpc_address", &ServiceInstance::grpcAddress},
    {"http_address", &ServiceInstance::httpAddress},
    {"started_ms", &ServiceInstance::startedMs},
    {"decisions_per_second", &ServiceInstance::decisionsPerSecond},
    {"decisions_total", &ServiceInstance::decisionsTotal},
    {"cached_refusals", &ServiceInstance::cachedRefusals},
    {"cache_bytes", &ServiceInstance::cacheBytes},
    {"cache_hits_total", &ServiceInstance::cacheHitsTotal},
    {"ready", &ServiceInstance::ready},
    {"last_error", &ServiceInstance::lastError},
};

// A JSON number that is a whole number a double holds exactly (2^53).
bool isWholeNumber(const QJsonValue& value)
{
    if (!value.isDouble())
        return false;
    const double number = value.toDouble();
    return std::floor(number) == number && std::fabs(number) <= 9007199254740992.0;
}

// Stores `value` into `member` of `instance`; the name of the JSON type it needs when it has
// another, else nullptr.
const char* assign(ServiceInstance& instance, const Member& member, const QJsonValue& value)
{
    struct Visitor
    {
        ServiceInstance& instance;
        const QJsonValue& value;
        const char* operator()(QString ServiceInstance::*field) const
        {
            if (!value.isString())
                return "a string";
            instance.*field = value.toString();
            return nullptr;
        }
        const char* operator()(qint64 ServiceInstance::*field) const
        {
            if (!isWholeNumber(value))
                return "a whole number";
            instance.*field = value.toInteger();
            return nullptr;
        }
        const char* operator()(double ServiceInstance::*field) const
        {
            if (!value.isDouble())
                return "a number";
            instance.*field = value.toDouble();
            return nullptr;
        }
        const char* operator()(bool ServiceInstance::*field) const
        {
            if (!value.isBool())
                return "true or false";
            instance.*field = value.toBool();
            return nullptr;
        }
    };
    return std::visit(Visitor{instance, value}, member);
}

} // namespace

ServiceHealth serviceHealth(const ServiceInstance& instance, qint64 serverNowMs)
{
    if (instance.isStale(serverNowMs))
        return ServiceHealth::Stale;
    return instance.ready ? ServiceHealth::Ready : ServiceHealth::NotReady;
}

QString serviceHealthName(ServiceHealth health)
{
    switch (health) {
    case ServiceHealth::Ready:
        return QStringLiteral("ready");
    case ServiceHealth::NotReady:
        return QStringLiteral("not_ready");
    case ServiceHealth::Stale:
        return QStringLiteral("stale");
    }
    return {};
}

QByteArray ServiceInstance::toJson() const
{
    QJsonObject object;
    for (const JsonField& field : kFields)
        std::visit([&](auto member) { object.insert(QLatin1String(field.name), this->*member); },
                   field.member);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

Result<ServiceInstance> ServiceInstance::fromJson(const QByteArray& id, const QByteArray& json)
{
    const QString who = QString::fromUtf8(id);
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{ErrorKind::WrongType,
                     QStringLiteral("service %1: the payload is no JSON (%2 at byte %3)")
                         .arg(who, parseError.errorString())
                         .arg(parseError.offset)};
    if (!document.isObject())
        return Error{ErrorKind::WrongType,
                     QStringLiteral("service %1: the payload is no JSON object").arg(who)};
    const QJsonObject object = document.object();
    ServiceInstance instance;
    instance.id = id;
    for (const JsonField& field : kFields) {
        const auto found = object.constFind(QLatin1String(field.name));
        if (found == object.constEnd())
            continue;
        if (const char* wanted = assign(instance, field.member, *found))
            return Error{ErrorKind::WrongType,
                         QStringLiteral("service %1: field %2 must be %3")
                             .arg(who, QLatin1String(field.name), QLatin1String(wanted))};
    }
    return instance;
}

} // namespace tollgate
