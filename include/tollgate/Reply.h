#pragma once

// Command and Reply: a Redis command as bytes, and a decoded reply.

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <optional>
#include <vector>

namespace tollgate {

/// A Redis command: its name and arguments, each as raw bytes ({"GET", key}).
using Command = QList<QByteArray>;

/// One decoded RESP reply. Top-level error replies never reach callers as a Reply:
/// the client turns them into an Error. Nested errors (inside arrays) keep Type::Error.
struct Reply
{
    enum class Type
    {
        Nil,
        Status,
        String,
        Integer,
        Array,
        Error
    };

    Type type = Type::Nil;
    QByteArray string; // Status, String and Error text
    qint64 integer = 0;
    std::vector<Reply> elements;

    bool isNil() const { return type == Type::Nil; }
    bool isArray() const { return type == Type::Array; }
    bool isInteger() const { return type == Type::Integer; }
    bool isString() const { return type == Type::String || type == Type::Status; }

    /// Integer replies, or strings that hold a base-10 integer.
    std::optional<qint64> toInteger() const;
    /// String/status bytes; integers rendered in decimal; empty for nil.
    QByteArray toBytes() const;
    QString toQString() const { return QString::fromUtf8(toBytes()); }
    /// A flat array [k1, v1, k2, v2, ...] (HGETALL, XRANGE fields) as pairs.
    QList<QPair<QByteArray, QByteArray>> toPairs() const;
    /// TIME's reply {seconds, microseconds} as epoch ms; nullopt for any other shape.
    std::optional<qint64> toTimeMs() const;
    /// A readable one-line-per-element rendering, as redis-cli prints it.
    QString toDisplayString(int indent = 0) const;

    static Reply fromInteger(qint64 value);
    static Reply fromString(QByteArray value);
};

} // namespace tollgate
