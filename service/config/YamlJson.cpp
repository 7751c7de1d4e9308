#include "service/config/YamlJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <yaml-cpp/yaml.h>

namespace tollgate::service {

namespace {

Result<QJsonValue> toJson(const YAML::Node& node)
{
    switch (node.Type()) {
    case YAML::NodeType::Map: {
        QJsonObject object;
        for (const auto& pair : node) {
            if (!pair.first.IsScalar())
                return Error{ErrorKind::InvalidInput,
                             QStringLiteral("a metadata key must be a single value")};
            auto value = toJson(pair.second);
            if (!value)
                return value.error();
            object.insert(QString::fromStdString(pair.first.Scalar()), *value);
        }
        return QJsonValue(object);
    }
    case YAML::NodeType::Sequence: {
        QJsonArray array;
        for (const auto& item : node) {
            auto value = toJson(item);
            if (!value)
                return value.error();
            array.append(*value);
        }
        return QJsonValue(array);
    }
    case YAML::NodeType::Scalar: {
        const QString text = QString::fromStdString(node.Scalar());
        if (node.Tag() == "!") // quoted: a string whatever it reads as
            return QJsonValue(text);
        if (text == QLatin1String("true") || text == QLatin1String("false"))
            return QJsonValue(text == QLatin1String("true"));
        bool number = false;
        const double value = text.toDouble(&number);
        if (number)
            return QJsonValue(value);
        return QJsonValue(text);
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        break;
    }
    return QJsonValue(QJsonValue::Null);
}

} // namespace

Result<QByteArray> yamlToCompactJson(const YAML::Node& node)
{
    auto value = toJson(node);
    if (!value)
        return value.error();
    if (value->isObject())
        return QJsonDocument(value->toObject()).toJson(QJsonDocument::Compact);
    if (value->isArray())
        return QJsonDocument(value->toArray()).toJson(QJsonDocument::Compact);
    return Error{ErrorKind::InvalidInput, QStringLiteral("must be a map")};
}

} // namespace tollgate::service
