#include "service/config/ServiceConfig.h"

#include "service/config/YamlJson.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <map>
#include <set>
#include <yaml-cpp/yaml.h>

namespace tollgate::service {

namespace {

const std::set<std::string> kDescriptorFields = {
    "key",        "value",           "rate_limit",      "descriptors",     "shadow_mode",
    "quota_mode", "detailed_metric", "value_to_metric", "share_threshold", "metadata",
    "replaces",   "tollgate"};
const std::set<std::string> kRateLimitFields = {"unit", "requests_per_unit", "name", "unlimited",
                                                "replaces"};
// Tollgate's additions: the policy fields of `tollgatectl policy set`, and which entry is the user.
const std::set<std::string> kTollgateFields = {"algorithm", "windows",   "cost",         "warn",
                                               "ban",       "calendar",  "time_zone",    "count_denied",
                                               "message",   "on_error",  "user"};

std::vector<QByteArray> splitPattern(const QByteArray& value)
{
    const QList<QByteArray> parts = value.split('*');
    return {parts.begin(), parts.end()};
}

struct Parser
{
    QString file;
    ServiceConfig* config;
    std::set<QByteArray>* actions; // every limiting rule's, across the files

    QString where(const YAML::Node& node) const
    {
        return QStringLiteral("%1:%2").arg(file).arg(node.Mark().line + 1);
    }
    Error fail(const YAML::Node& node, const QString& field, const QString& message) const
    {
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("%1: %2: %3").arg(where(node), field, message)};
    }
    void note(const YAML::Node& node, const QString& text) const
    {
        config->notes.push_back(where(node) + QStringLiteral(": ") + text);
    }

    // A single value as text; empty for null or anything else (fields checked with scalar()).
    static QString text(const YAML::Node& node)
    {
        return node && node.IsScalar() ? QString::fromStdString(node.Scalar()) : QString();
    }
    static Result<QString> scalar(const YAML::Node& node)
    {
        if (node.IsNull())
            return QString();
        if (!node.IsScalar())
            return Error{ErrorKind::InvalidInput, QStringLiteral("must be a single value")};
        return QString::fromStdString(node.Scalar());
    }
    Result<bool> boolean(const YAML::Node& node, const QString& field) const
    {
        auto text = scalar(node);
        const QString value = text ? text->toLower() : QString();
        if (value == QLatin1String("true"))
            return true;
        if (value == QLatin1String("false") || value.isEmpty())
            return false;
        return fail(node, field, QStringLiteral("must be true or false"));
    }

    Status checkFields(const YAML::Node& map, const std::set<std::string>& allowed,
                       const QString& what) const
    {
        if (!map.IsMap())
            return fail(map, what, QStringLiteral("must be a map"));
        for (const auto& pair : map) {
            const std::string name = pair.first.as<std::string>("");
            if (!allowed.count(name))
                return fail(pair.first, what + QLatin1Char('.') + QString::fromStdString(name),
                            QStringLiteral("unknown field"));
        }
        return Unit{};
    }

    // `replaces: [{name: ...}]`, into rule.replaces.
    Status replaces(const YAML::Node& list, const QString& field, DescriptorRule& rule) const
    {
        if (!list.IsSequence())
            return fail(list, field, QStringLiteral("must be a list of {name: ...}"));
        for (const auto& entry : list) {
            const QString name = entry.IsMap() && entry["name"] ? text(entry["name"]) : QString();
            if (name.isEmpty())
                return fail(entry, field, QStringLiteral("each entry needs a name"));
            rule.replaces.push_back(name);
        }
        return Unit{};
    }

    Result<RateLimitSpec> rateLimit(const YAML::Node& node, DescriptorRule& rule) const
    {
        if (Status ok = checkFields(node, kRateLimitFields, QStringLiteral("rate_limit")); !ok)
            return ok.error();
        RateLimitSpec spec;
        if (node["name"])
            spec.name = text(node["name"]);
        if (node["replaces"]) {
            if (Status ok = replaces(node["replaces"], QStringLiteral("rate_limit.replaces"), rule); !ok)
                return ok.error();
            for (const QString& name : rule.replaces) {
                if (!spec.name.isEmpty() && name == spec.name)
                    return fail(node["replaces"], QStringLiteral("rate_limit.replaces"),
                                QStringLiteral("a limit cannot replace itself ('%1')").arg(name));
            }
        }
        if (node["unlimited"]) {
            auto unlimited = boolean(node["unlimited"], QStringLiteral("rate_limit.unlimited"));
            if (!unlimited)
                return unlimited.error();
            rule.unlimited = *unlimited;
        }
        const QString unit = node["unit"] ? text(node["unit"]) : QString();
        if (rule.unlimited) {
            if (unitFromName(unit))
                return fail(node, QStringLiteral("rate_limit.unit"),
                            QStringLiteral("an unlimited limit has no unit"));
            return spec;
        }
        const auto parsed = unitFromName(unit);
        if (!parsed)
            return fail(node, QStringLiteral("rate_limit.unit"),
                        QStringLiteral("'%1' is not one of second, minute, hour, day, week, "
                                       "month, year").arg(unit));
        spec.unit = *parsed;
        bool ok = false;
        const QString count = node["requests_per_unit"]
                                  ? text(node["requests_per_unit"])
                                  : QString();
        spec.requestsPerUnit = count.toLongLong(&ok);
        if (!ok || spec.requestsPerUnit < 0 || spec.requestsPerUnit > Policy::kMaxLimit)
            return fail(node, QStringLiteral("rate_limit.requests_per_unit"),
                        QStringLiteral("must be a whole number from 0 to %1, got '%2'")
                            .arg(Policy::kMaxLimit)
                            .arg(count));
        return spec;
    }

    // The policy counting `rule`'s hits: envoyproxy/ratelimit's fixed window per unit, with
    // Tollgate's own fields on top.
    Status compile(const YAML::Node& node, const YAML::Node& extra, DescriptorRule& rule,
                   const QByteArray& action)
    {
        PolicyText fields;
        const RateLimitSpec& spec = *rule.rateLimit;
        const bool ownWindows = extra && extra["windows"];
        if (!ownWindows) {
            static const std::map<LimitUnit, const char*> windows = {
                {LimitUnit::Second, "1s"}, {LimitUnit::Minute, "1m"}, {LimitUnit::Hour, "1h"},
                {LimitUnit::Day, "1d"},    {LimitUnit::Week, "1w"},   {LimitUnit::Month, "30d"},
                {LimitUnit::Year, "365d"}};
            fields.push_back({"windows", QStringLiteral("%1:%2")
                                             .arg(QString::fromLatin1(windows.at(spec.unit)))
                                             .arg(std::max<qint64>(spec.requestsPerUnit, 1))});
        }
        const bool calendarUnit = spec.unit == LimitUnit::Minute ||
                                  spec.unit == LimitUnit::Hour || spec.unit == LimitUnit::Day ||
                                  spec.unit == LimitUnit::Week;
        const bool ownAlgorithm = extra && extra["algorithm"] &&
                                  text(extra["algorithm"]) !=
                                      QLatin1String("fixed_window");
        if (!ownWindows && !ownAlgorithm && calendarUnit)
            fields.push_back({"calendar", QStringLiteral("true")}); // windows start at :00 UTC
        // envoyproxy/ratelimit adds every hit to the window, refused or not: a cost above what
        // is left still counts, and the next hits are refused until the window ends.
        if (!ownAlgorithm)
            fields.push_back({"count_denied", QStringLiteral("true")});
        if (rule.shadow)
            fields.push_back({"shadow", QStringLiteral("true")});
        if (extra) {
            for (const auto& pair : extra) {
                const QByteArray name = QByteArray::fromStdString(pair.first.as<std::string>(""));
                if (name == "user")
                    continue;
                auto value = scalar(pair.second);
                if (!value)
                    return fail(pair.second, QStringLiteral("tollgate.") + QString::fromLatin1(name),
                                value.error().message);
                fields.erase(std::remove_if(fields.begin(), fields.end(),
                                            [&](const PolicyTextField& f) { return f.name == name; }),
                             fields.end());
                fields.push_back({name, *value});
            }
        }
        auto policy = policyFromText(action, fields);
        if (!policy)
            return fail(extra ? extra : node, QStringLiteral("tollgate"), policy.error().message);
        // What differs from envoyproxy/ratelimit, for `tollgated check-config`.
        if (ownWindows || ownAlgorithm)
            note(node, QStringLiteral("%1 counts with Tollgate's own %2 %3, not a fixed window "
                                      "per %4")
                           .arg(QString::fromUtf8(action),
                                QString::fromLatin1(algorithmName(policy->algorithm)),
                                policy->windowsText(), unitName(spec.unit)));
        else if (spec.unit == LimitUnit::Second)
            note(node, QStringLiteral("%1: a window of one second starts at each subject's "
                                      "first hit, not at the whole second")
                           .arg(QString::fromUtf8(action)));
        else if (spec.unit == LimitUnit::Week)
            note(node, QStringLiteral("%1: weeks start on Monday 00:00 UTC; "
                                      "envoyproxy/ratelimit's start on Thursday (the epoch's)")
                           .arg(QString::fromUtf8(action)));
        else if (spec.unit == LimitUnit::Month || spec.unit == LimitUnit::Year)
            note(node, QStringLiteral("%1: a %2 is %3 days from each subject's first hit, not a "
                                      "multiple of it since the epoch")
                           .arg(QString::fromUtf8(action), unitName(spec.unit))
                           .arg(spec.unit == LimitUnit::Month ? 30 : 365));
        if (spec.requestsPerUnit == 0)
            note(node, QStringLiteral("%1: requests_per_unit 0 refuses every request without "
                                      "counting it").arg(QString::fromUtf8(action)));
        config->policies.push_back(*policy);
        return Unit{};
    }

    // `path`: the action so far ("domain.key_value"); `keys`: the keys above this level.
    Result<DescriptorRule> parseRule(const YAML::Node& node, const QByteArray& path,
                                std::vector<QByteArray> keys)
    {
        if (Status ok = checkFields(node, kDescriptorFields, QStringLiteral("descriptor")); !ok)
            return ok.error();
        DescriptorRule rule;
        rule.where = where(node);
        const QString key = node["key"] ? text(node["key"]) : QString();
        if (key.isEmpty())
            return fail(node, QStringLiteral("key"), QStringLiteral("every descriptor needs a key"));
        rule.key = key.toUtf8();
        rule.value = (node["value"] ? text(node["value"]) : QString()).toUtf8();
        rule.pattern.parts = rule.value.isEmpty() ? std::vector<QByteArray>{}
                                                  : splitPattern(rule.value);
        const QByteArray segment = rule.key + (rule.value.isEmpty() ? QByteArray() : "_" + rule.value);
        const QByteArray action = path + '.' + segment;
        rule.name = action;
        keys.push_back(rule.key);
        const std::pair<const char*, bool*> flags[] = {
            {"shadow_mode", &rule.shadow},          {"quota_mode", &rule.quotaMode},
            {"detailed_metric", &rule.detailedMetric}, {"value_to_metric", &rule.valueToMetric},
            {"share_threshold", &rule.shareThreshold}};
        for (const auto& [flag, field] : flags) {
            if (!node[flag])
                continue;
            auto on = boolean(node[flag], QString::fromLatin1(flag));
            if (!on)
                return on.error();
            *field = *on;
        }
        if (rule.shareThreshold && !rule.wildcard())
            return fail(node, QStringLiteral("share_threshold"),
                        QStringLiteral("only a value with a wildcard (*) can share its threshold"));
        if (rule.wildcard() && !(rule.pattern.parts.size() == 2 && rule.pattern.parts[1].isEmpty()))
            note(node, QStringLiteral("%1: a wildcard inside the value matches as "
                                      "envoyproxy/ratelimit's current releases do; older ones "
                                      "took it literally").arg(QString::fromUtf8(action)));
        if (const YAML::Node metadata = node["metadata"]) {
            auto json = yamlToCompactJson(metadata);
            if (!json || !metadata.IsMap())
                return fail(metadata, QStringLiteral("metadata"),
                            json ? QStringLiteral("must be a map") : json.error().message);
            rule.metadata = *json;
        }
        if (const YAML::Node list = node["replaces"]) {
            if (Status ok = replaces(list, QStringLiteral("replaces"), rule); !ok)
                return ok.error();
            note(list, QStringLiteral("replaces belongs inside rate_limit; envoyproxy/ratelimit "
                                      "ignores it here, Tollgate reads it as if it were there"));
        }
        const YAML::Node extra = node["tollgate"];
        if (extra) {
            if (Status ok = checkFields(extra, kTollgateFields, QStringLiteral("tollgate")); !ok)
                return ok.error();
            if (extra["user"]) {
                rule.userKey = text(extra["user"]).toUtf8();
                if (std::find(keys.begin(), keys.end(), rule.userKey) == keys.end())
                    return fail(extra["user"], QStringLiteral("tollgate.user"),
                                QStringLiteral("'%1' is not a key of this descriptor's path")
                                    .arg(QString::fromUtf8(rule.userKey)));
            }
        }
        if (const YAML::Node limit = node["rate_limit"]) {
            auto spec = rateLimit(limit, rule);
            if (!spec)
                return spec.error();
            if (!rule.unlimited) {
                rule.rateLimit = *spec;
                if (!actions->insert(action).second)
                    return fail(node, QStringLiteral("key"),
                                QStringLiteral("a descriptor with the same key and value is "
                                               "already configured at this level"));
                rule.action = action;
                if (Status ok = compile(node, extra, rule, action); !ok)
                    return ok.error();
            } else {
                rule.rateLimit = *spec; // its name may still be replaced
            }
        } else if (extra && extra.size() > (extra["user"] ? 1u : 0u)) {
            return fail(extra, QStringLiteral("tollgate"),
                        QStringLiteral("policy fields need a rate_limit on the same descriptor"));
        }
        if (const YAML::Node children = node["descriptors"]) {
            if (!children.IsSequence())
                return fail(children, QStringLiteral("descriptors"), QStringLiteral("must be a list"));
            for (const auto& child : children) {
                auto parsed = parseRule(child, action, keys);
                if (!parsed)
                    return parsed.error();
                if (Status ok = unique(rule.children, *parsed, child); !ok)
                    return ok.error();
                rule.children.push_back(std::move(*parsed));
            }
        }
        return rule;
    }

    // envoyproxy/ratelimit refuses two descriptors of one level with the same key and value.
    Status unique(const std::vector<DescriptorRule>& level, const DescriptorRule& rule,
                  const YAML::Node& node) const
    {
        for (const DescriptorRule& other : level) {
            if (other.key == rule.key && other.value == rule.value)
                return fail(node, QStringLiteral("key"),
                            QStringLiteral("a descriptor with the same key and value is already "
                                           "configured at this level (%1)").arg(other.where));
        }
        return Unit{};
    }

    Status domain(const YAML::Node& root)
    {
        if (!root.IsMap())
            return fail(root, QStringLiteral("domain"), QStringLiteral("the file must be a map"));
        static const std::set<std::string> top = {"domain", "descriptors"};
        if (Status ok = checkFields(root, top, QStringLiteral("file")); !ok)
            return ok.error();
        DomainConfig domain;
        domain.file = file;
        domain.domain = root["domain"] ? text(root["domain"]).toUtf8()
                                       : QByteArray();
        if (domain.domain.isEmpty())
            return fail(root, QStringLiteral("domain"), QStringLiteral("a domain is required"));
        if (config->domain(domain.domain))
            return fail(root, QStringLiteral("domain"),
                        QStringLiteral("domain %1 is configured twice")
                            .arg(QString::fromUtf8(domain.domain)));
        const YAML::Node rules = root["descriptors"];
        if (rules && !rules.IsSequence())
            return fail(rules, QStringLiteral("descriptors"), QStringLiteral("must be a list"));
        for (const auto& node : rules) {
            auto parsed = parseRule(node, domain.domain, {});
            if (!parsed)
                return parsed.error();
            if (Status ok = unique(domain.rules, *parsed, node); !ok)
                return ok.error();
            domain.rules.push_back(std::move(*parsed));
        }
        config->domains.push_back(std::move(domain));
        return Unit{};
    }
};

void collectNames(const std::vector<DescriptorRule>& rules, std::set<QString>& names)
{
    for (const DescriptorRule& rule : rules) {
        if (rule.rateLimit && !rule.rateLimit->name.isEmpty())
            names.insert(rule.rateLimit->name);
        collectNames(rule.children, names);
    }
}

// A name no limit has is not an error (envoyproxy/ratelimit loads it too), but likely a typo.
void noteUnknownReplaces(const std::vector<DescriptorRule>& rules, const std::set<QString>& names,
                         std::vector<QString>& notes)
{
    for (const DescriptorRule& rule : rules) {
        for (const QString& name : rule.replaces) {
            if (!names.count(name))
                notes.push_back(QStringLiteral("%1: replaces '%2': no rate_limit of the domain "
                                               "has that name; it replaces nothing")
                                    .arg(rule.where, name));
        }
        noteUnknownReplaces(rule.children, names, notes);
    }
}

} // namespace

qint64 unitMs(LimitUnit unit)
{
    constexpr qint64 second = 1000, day = 86'400'000;
    switch (unit) {
    case LimitUnit::Second: return second;
    case LimitUnit::Minute: return 60 * second;
    case LimitUnit::Hour: return 3600 * second;
    case LimitUnit::Day: return day;
    case LimitUnit::Week: return 7 * day;
    case LimitUnit::Month: return 30 * day;
    case LimitUnit::Year: return 365 * day;
    case LimitUnit::Unknown: break;
    }
    return 0;
}

QString unitName(LimitUnit unit)
{
    static const char* names[] = {"unknown", "second", "minute", "hour", "day", "month", "year", "week"};
    return QString::fromLatin1(names[int(unit)]);
}

std::optional<LimitUnit> unitFromName(const QString& name)
{
    for (int i = 1; i <= 7; ++i) {
        if (name.compare(unitName(LimitUnit(i)), Qt::CaseInsensitive) == 0)
            return LimitUnit(i);
    }
    return std::nullopt;
}

LimitUnit unitOfWindow(qint64 ms)
{
    for (int i = 1; i <= 7; ++i) {
        if (unitMs(LimitUnit(i)) == ms)
            return LimitUnit(i);
    }
    return LimitUnit::Unknown;
}

bool ValuePattern::matches(const QByteArray& value) const
{
    if (parts.size() < 2)
        return parts.empty() || parts.front() == value;
    qsizetype fixed = 0;
    for (const QByteArray& part : parts)
        fixed += part.size();
    if (value.size() < fixed || !value.startsWith(parts.front()) || !value.endsWith(parts.back()))
        return false;
    // Each middle part at its first place after the one before: the leftmost match leaves the
    // most room for the rest.
    qsizetype from = parts.front().size();
    const qsizetype end = value.size() - parts.back().size();
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
        const qsizetype at = value.indexOf(parts[i], from);
        if (at < 0 || at + parts[i].size() > end)
            return false;
        from = at + parts[i].size();
    }
    return true;
}

const DomainConfig* ServiceConfig::domain(const QByteArray& name) const
{
    for (const DomainConfig& each : domains) {
        if (each.domain == name)
            return &each;
    }
    return nullptr;
}

const Policy* ServiceConfig::policy(const QByteArray& action) const
{
    for (const Policy& each : policies) {
        if (each.action == action)
            return &each;
    }
    return nullptr;
}

Result<ServiceConfig> parseServiceConfig(const std::vector<ConfigFile>& files)
{
    ServiceConfig config;
    std::set<QByteArray> actions;
    QCryptographicHash digest(QCryptographicHash::Sha256);
    for (const ConfigFile& file : files) {
        digest.addData(QByteArray(file.path.toUtf8() + '\0' + file.text + '\0'));
        config.files.push_back(file.path);
        Parser parser{file.path, &config, &actions};
        std::vector<YAML::Node> documents;
        try {
            documents = YAML::LoadAll(file.text.toStdString());
        } catch (const YAML::Exception& e) {
            return Error{ErrorKind::InvalidInput, QStringLiteral("%1:%2: not YAML: %3")
                                                      .arg(file.path)
                                                      .arg(e.mark.line + 1)
                                                      .arg(QString::fromStdString(e.msg))};
        }
        for (const YAML::Node& document : documents) {
            if (document.IsNull())
                continue;
            if (Status ok = parser.domain(document); !ok)
                return ok.error();
        }
    }
    for (const DomainConfig& domain : config.domains) {
        std::set<QString> names;
        collectNames(domain.rules, names);
        noteUnknownReplaces(domain.rules, names, config.notes);
    }
    config.digest = digest.result().toHex();
    return config;
}

Result<ServiceConfig> loadServiceConfig(const QString& path)
{
    QStringList paths;
    const QFileInfo info(path);
    if (info.isDir()) {
        const QDir dir(path);
        for (const QString& name :
             dir.entryList({QStringLiteral("*.yaml"), QStringLiteral("*.yml")}, QDir::Files,
                           QDir::Name))
            paths << dir.filePath(name);
        if (paths.isEmpty())
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("%1: no *.yaml or *.yml file in this directory").arg(path)};
    } else {
        paths << path;
    }
    std::vector<ConfigFile> files;
    for (const QString& each : paths) {
        QFile file(each);
        if (!file.open(QIODevice::ReadOnly))
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("cannot read %1: %2").arg(each, file.errorString())};
        files.push_back({each, file.readAll()});
    }
    return parseServiceConfig(files);
}

} // namespace tollgate::service
