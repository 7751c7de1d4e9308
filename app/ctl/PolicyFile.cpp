#include "app/ctl/PolicyFile.h"

#include "core/keys/IdText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <set>
#include <yaml-cpp/yaml.h>

namespace tollgate::ctl {

namespace {

using Kind = PolicyTextField::Kind;

std::string utf8(const QString& text)
{
    return text.toStdString();
}

Error invalid(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

// "policies[3] (like)" or "policies[3]" when the action is not known yet.
QString entryName(size_t index, const QByteArray& action = {})
{
    QString name = QStringLiteral("policies[%1]").arg(index);
    if (!action.isEmpty())
        name += QStringLiteral(" (%1)").arg(idToDisplayText(action));
    return name;
}

} // namespace

QByteArray policiesToYaml(const std::vector<PolicyFileEntry>& entries)
{
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "policies" << YAML::Value << YAML::BeginSeq;
    for (const PolicyFileEntry& entry : entries) {
        out << YAML::BeginMap << YAML::Key << "action" << YAML::Value << YAML::DoubleQuoted
            << utf8(idToText(entry.action));
        for (const PolicyTextField& field : entry.fields) {
            out << YAML::Key << field.name.toStdString() << YAML::Value;
            if (field.kind == Kind::Text)
                out << YAML::DoubleQuoted;
            out << utf8(field.value);
        }
        out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
    return QByteArray("# Tollgate policies: tollgatectl policy apply <this file> --reason R\n") +
           out.c_str() + '\n';
}

QByteArray policiesToJson(const std::vector<PolicyFileEntry>& entries)
{
    QJsonArray policies;
    for (const PolicyFileEntry& entry : entries) {
        QJsonObject object{{QStringLiteral("action"), idToText(entry.action)}};
        for (const PolicyTextField& field : entry.fields) {
            const QString name = QString::fromLatin1(field.name);
            if (field.kind == Kind::Integer)
                object.insert(name, field.value.toLongLong());
            else if (field.kind == Kind::Boolean)
                object.insert(name, field.value == QLatin1String("true"));
            else
                object.insert(name, field.value);
        }
        policies.append(object);
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("policies"), policies}}).toJson();
}

Result<std::vector<PolicyFileEntry>> parsePolicyFile(const QByteArray& text)
{
    YAML::Node root;
    try {
        root = YAML::Load(text.toStdString());
    } catch (const YAML::Exception& e) {
        return invalid(QStringLiteral("not YAML or JSON: line %1, column %2: %3")
                           .arg(e.mark.line + 1)
                           .arg(e.mark.column + 1)
                           .arg(QString::fromStdString(e.msg)));
    }
    const YAML::Node list = root.IsMap() ? root["policies"] : YAML::Node();
    if (!list.IsSequence())
        return invalid(QStringLiteral("the file must hold 'policies:', a list of policies"));
    std::vector<PolicyFileEntry> entries;
    std::set<QByteArray> seen;
    for (size_t i = 0; i < list.size(); ++i) {
        const YAML::Node& node = list[i];
        if (!node.IsMap())
            return invalid(entryName(i) + QStringLiteral(" is not a map of fields"));
        PolicyFileEntry entry;
        for (const auto& pair : node) {
            const QByteArray name = QByteArray::fromStdString(pair.first.as<std::string>(""));
            if (!pair.second.IsScalar() && !pair.second.IsNull())
                return invalid(entryName(i, entry.action) +
                               QStringLiteral(": field %1 must be a single value")
                                   .arg(QString::fromUtf8(name.left(40))));
            // (an empty value, `message:`, is YAML's null: read as "")
            const QString value =
                pair.second.IsNull() ? QString() : QString::fromStdString(pair.second.Scalar());
            if (name == "action")
                entry.action = idFromText(value);
            else
                entry.fields.push_back({name, value, Kind::Text});
        }
        if (entry.action.isEmpty())
            return invalid(entryName(i) + QStringLiteral(" has no action"));
        if (!seen.insert(entry.action).second)
            return invalid(entryName(i, entry.action) +
                           QStringLiteral(": the action appears twice in the file"));
        entries.push_back(std::move(entry));
    }
    return entries;
}

} // namespace tollgate::ctl
