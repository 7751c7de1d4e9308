#include "service/rlqs/QuotaSettings.h"

#include "core/policies/Duration.h"

#include <QFile>
#include <set>
#include <yaml-cpp/yaml.h>

namespace tollgate::service {

namespace {

Error invalid(const QString& file, const YAML::Node& node, const QString& field, const QString& why)
{
    return Error{ErrorKind::InvalidInput, QStringLiteral("%1:%2: rate_limit_quota.%3: %4")
                                              .arg(file)
                                              .arg(node.Mark().line + 1)
                                              .arg(field, why)};
}

Result<qint64> duration(const QString& file, const YAML::Node& node, const QString& field)
{
    const QString text = node.IsScalar() ? QString::fromStdString(node.Scalar()) : QString();
    auto ms = parseDuration(text);
    if (!ms || *ms < 1000)
        return invalid(file, node, field,
                       QStringLiteral("must be a duration of at least 1s (30s, 5m), got '%1'").arg(text));
    return *ms;
}

Result<QuotaDomainSettings> parseSection(const QString& file, const YAML::Node& section)
{
    static const std::set<std::string> fields = {"bucket_keys", "assignment_ttl", "abandon_after"};
    QuotaDomainSettings settings;
    if (!section.IsMap())
        return invalid(file, section, QStringLiteral("section"), QStringLiteral("must be a map"));
    for (const auto& pair : section) {
        const std::string name = pair.first.as<std::string>("");
        if (!fields.count(name))
            return invalid(file, pair.first, QString::fromStdString(name), QStringLiteral("unknown field"));
    }
    if (const YAML::Node keys = section["bucket_keys"]) {
        if (!keys.IsSequence() || keys.size() == 0)
            return invalid(file, keys, QStringLiteral("bucket_keys"),
                           QStringLiteral("must be a list of bucket id keys"));
        for (const YAML::Node& key : keys) {
            if (!key.IsScalar() || key.Scalar().empty())
                return invalid(file, key, QStringLiteral("bucket_keys"),
                               QStringLiteral("every key must be a non-empty string"));
            settings.bucketKeys.push_back(QByteArray::fromStdString(key.Scalar()));
        }
    }
    if (const YAML::Node ttl = section["assignment_ttl"]) {
        auto ms = duration(file, ttl, QStringLiteral("assignment_ttl"));
        if (!ms)
            return ms.error();
        settings.assignmentTtlMs = *ms;
    }
    if (const YAML::Node idle = section["abandon_after"]) {
        auto ms = duration(file, idle, QStringLiteral("abandon_after"));
        if (!ms)
            return ms.error();
        settings.abandonAfterMs = *ms;
    }
    return settings;
}

} // namespace

Result<std::map<QByteArray, QuotaDomainSettings>> loadQuotaSettings(const ServiceConfig& config)
{
    std::map<QByteArray, QuotaDomainSettings> all;
    for (const DomainConfig& domain : config.domains) {
        all[domain.domain] = {};
        QFile file(domain.file);
        if (!file.open(QIODevice::ReadOnly))
            continue; // read a moment ago by parseServiceConfig: gone since, the defaults hold
        std::vector<YAML::Node> documents; // a file may hold several domains (---)
        try {
            documents = YAML::LoadAll(file.readAll().toStdString());
        } catch (const YAML::Exception&) {
            continue; // parseServiceConfig has just read it: replaced since
        }
        for (const YAML::Node& document : documents) {
            const YAML::Node name = document.IsMap() ? document["domain"] : YAML::Node();
            const YAML::Node section = document.IsMap() ? document["rate_limit_quota"] : YAML::Node();
            if (!name || !name.IsScalar() || QByteArray::fromStdString(name.Scalar()) != domain.domain ||
                !section)
                continue;
            auto settings = parseSection(domain.file, section);
            if (!settings)
                return settings.error();
            all[domain.domain] = *settings;
        }
    }
    return all;
}

} // namespace tollgate::service
