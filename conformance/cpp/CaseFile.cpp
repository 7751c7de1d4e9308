#include "conformance/cpp/CaseFile.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>

namespace tollgate::conformance {

namespace {

QStringList words(const char* text)
{
    return QString::fromLatin1(text).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// The fields each op takes besides "op" and "expect" (conformance/README.md "Steps").
const QHash<QString, QStringList>& stepFields()
{
    static const QHash<QString, QStringList> fields{
        {QStringLiteral("hit"), words("action user cost repeat client")},
        {QStringLiteral("peek"), words("action user cost repeat client")},
        {QStringLiteral("refund"), words("action user cost reason actor client")},
        {QStringLiteral("penalize"), words("action user cost reason actor client")},
        {QStringLiteral("ban"), words("user action ms reason actor")},
        {QStringLiteral("unban"), words("user action reason actor")},
        {QStringLiteral("reset"), words("user action reason actor")},
        {QStringLiteral("override"), words("user action windows unlimited ms reason actor")},
        {QStringLiteral("policy"), words("action fields delete")},
        {QStringLiteral("sleep"), words("ms")},
        {QStringLiteral("redis"), words("command")},
        {QStringLiteral("freeze"), {}},
        {QStringLiteral("thaw"), {}},
        {QStringLiteral("check"), {}},
    };
    return fields;
}

} // namespace

std::optional<QByteArray> idBytes(const QJsonValue& value)
{
    if (value.isString())
        return value.toString().toUtf8();
    const QJsonObject object = value.toObject();
    if (object.keys() == QStringList{QStringLiteral("repeat"), QStringLiteral("times")})
        return object.value(QStringLiteral("repeat")).toString().toUtf8().repeated(
            object.value(QStringLiteral("times")).toInt());
    if (object.keys() == QStringList{QStringLiteral("hex")})
        return QByteArray::fromHex(object.value(QStringLiteral("hex")).toString().toLatin1());
    return std::nullopt;
}

QString checkStep(const QJsonObject& step)
{
    const QString op = step.value(QStringLiteral("op")).toString();
    const auto known = stepFields().constFind(op);
    if (known == stepFields().constEnd())
        return QStringLiteral("unknown op '%1'").arg(op);
    for (const QString& key : step.keys())
        if (key != QLatin1String("op") && key != QLatin1String("expect") && !known->contains(key))
            return QStringLiteral("op %1 has no field '%2'").arg(op, key);
    return {};
}

std::optional<CaseFile> CaseFile::load(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonObject root = QJsonDocument::fromJson(file.readAll(), &parseError).object();
    if (parseError.error != QJsonParseError::NoError) {
        *error = parseError.errorString();
        return std::nullopt;
    }
    static const QStringList keys = words("name prefix cluster policies steps skip");
    for (const QString& key : root.keys())
        if (!keys.contains(key)) {
            *error = QStringLiteral("unknown key '%1'").arg(key);
            return std::nullopt;
        }
    CaseFile loaded;
    loaded.file = QFileInfo(path).fileName();
    loaded.name = root.value(QStringLiteral("name")).toString();
    loaded.prefix = root.value(QStringLiteral("prefix")).toString(QStringLiteral("tg")).toUtf8();
    loaded.cluster = root.value(QStringLiteral("cluster")).toBool();
    const QJsonObject policies = root.value(QStringLiteral("policies")).toObject();
    for (auto it = policies.begin(); it != policies.end(); ++it)
        loaded.policies.append({it.key().toUtf8(), it.value().toObject()});
    loaded.steps = root.value(QStringLiteral("steps")).toArray();
    loaded.skip = root.value(QStringLiteral("skip")).toObject();
    for (qsizetype i = 0; i < loaded.steps.size(); ++i) {
        const QString wrong = checkStep(loaded.steps.at(i).toObject());
        if (!wrong.isEmpty()) {
            *error = QStringLiteral("step %1: %2").arg(i + 1).arg(wrong);
            return std::nullopt;
        }
    }
    return loaded;
}

} // namespace tollgate::conformance
