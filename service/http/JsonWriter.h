#pragma once

#include <QByteArray>
#include <QString>
#include <vector>

namespace tollgate::service {

/// Compact JSON written straight into bytes, for the answers the HTTP endpoint sends on every
/// decision (QJsonObject's tree and sorting cost a quarter of its main thread). Keys are written
/// as given, so callers keep them in the order QJsonDocument would (sorted). Strings given as
/// bytes are UTF-8; a sequence that is not valid becomes U+FFFD, as QString::fromUtf8 makes it.
class JsonWriter
{
public:
    JsonWriter& beginObject() { return open('{'); }
    JsonWriter& endObject() { return close('}'); }
    JsonWriter& beginArray() { return open('['); }
    JsonWriter& endArray() { return close(']'); }
    /// The next member's name (ASCII, nothing to escape).
    JsonWriter& key(const char* name);

    JsonWriter& value(const QByteArray& utf8);
    JsonWriter& value(const QString& text) { return value(text.toUtf8()); }
    JsonWriter& value(const char* ascii) { return value(QByteArray(ascii)); }
    JsonWriter& value(qint64 number);
    JsonWriter& value(bool flag);
    /// A value that is JSON already (compact, valid: the caller's own), written as it is.
    JsonWriter& json(const QByteArray& text);

    /// The text, with a final newline.
    QByteArray take() { return m_out + '\n'; }

private:
    JsonWriter& open(char bracket);
    JsonWriter& close(char bracket);
    void separate(); // the comma before an array's next value

    QByteArray m_out;
    std::vector<bool> m_empty{true}; // per open bracket: nothing written in it yet
    bool m_afterKey = false;
};

} // namespace tollgate::service
