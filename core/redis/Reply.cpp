#include "tollgate/Reply.h"

#include <QStringList>

namespace tollgate {

std::optional<qint64> Reply::toInteger() const
{
    if (type == Type::Integer)
        return integer;
    if (isString()) {
        bool ok = false;
        const qint64 value = string.toLongLong(&ok);
        if (ok)
            return value;
    }
    return std::nullopt;
}

QByteArray Reply::toBytes() const
{
    if (type == Type::Integer)
        return QByteArray::number(integer);
    return string;
}

QList<QPair<QByteArray, QByteArray>> Reply::toPairs() const
{
    QList<QPair<QByteArray, QByteArray>> pairs;
    for (size_t i = 0; i + 1 < elements.size(); i += 2)
        pairs.append({elements[i].toBytes(), elements[i + 1].toBytes()});
    return pairs;
}

QString Reply::toDisplayString(int indent) const
{
    const QString pad(indent, QLatin1Char(' '));
    switch (type) {
    case Type::Nil: return pad + QStringLiteral("(nil)");
    case Type::Integer: return pad + QStringLiteral("(integer) ") + QString::number(integer);
    case Type::Status: return pad + QString::fromUtf8(string);
    case Type::Error: return pad + QStringLiteral("(error) ") + QString::fromUtf8(string);
    case Type::String: return pad + QLatin1Char('"') + QString::fromUtf8(string) + QLatin1Char('"');
    case Type::Array: {
        if (elements.empty())
            return pad + QStringLiteral("(empty array)");
        QStringList lines;
        int i = 1;
        for (const Reply& element : elements) {
            const QString inner = element.toDisplayString(indent + 3).mid(indent + 3);
            lines << pad + QString::number(i++) + QStringLiteral(") ") + inner;
        }
        return lines.join(QLatin1Char('\n'));
    }
    }
    return {};
}

std::optional<qint64> Reply::toTimeMs() const
{
    if (elements.size() != 2)
        return std::nullopt;
    const std::optional<qint64> seconds = elements[0].toInteger();
    const std::optional<qint64> micros = elements[1].toInteger();
    if (!seconds || !micros)
        return std::nullopt;
    return *seconds * 1000 + *micros / 1000;
}

Reply Reply::fromInteger(qint64 value)
{
    Reply r;
    r.type = Type::Integer;
    r.integer = value;
    return r;
}

Reply Reply::fromString(QByteArray value)
{
    Reply r;
    r.type = Type::String;
    r.string = std::move(value);
    return r;
}

} // namespace tollgate
