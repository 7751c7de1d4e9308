#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <vector>

namespace tollgate {

/// Compact JSON written straight into bytes: the one writer of the CLI's JSON lines
/// (`tollgatectl subjects --json` prints a million of them) and of tollgated's HTTP answers
/// (sent on every decision). A QJsonObject tree cost ~80,000 instructions a line and a quarter
/// of the HTTP endpoint's main thread.
///
/// The bytes are what QJsonDocument::Compact writes for the same values, so output built either
/// way reads alike: members in the order given (callers keep QJsonDocument's, sorted, where a
/// QJsonObject was there before), strings as UTF-8 with '"', '\' and control characters escaped
/// (\b \f \n \r \t, others as \u00XX), and bytes that are not valid UTF-8 turned into U+FFFD as
/// QString::fromUtf8 turns them (a byte order mark is kept).
class JsonWriter
{
public:
    JsonWriter() { m_out.reserve(400); }

    JsonWriter& beginObject() { return open('{'); }
    JsonWriter& endObject() { return close('}'); }
    JsonWriter& beginArray() { return open('['); }
    JsonWriter& endArray() { return close(']'); }
    /// The next member's name: the project's own, ASCII, nothing to escape.
    JsonWriter& key(const char* name);

    /// A string given as UTF-8 bytes (an id as stored: invalid sequences become U+FFFD).
    JsonWriter& value(const QByteArray& utf8) { return string(utf8); }
    JsonWriter& value(const QString& text) { return string(text.toUtf8()); }
    JsonWriter& value(const char* ascii) { return string(QByteArrayView(ascii)); }
    JsonWriter& value(qint64 number);
    JsonWriter& value(int number) { return value(qint64(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();
    /// A value that is JSON already (valid and compact: the caller's own), written as it is.
    JsonWriter& json(QByteArrayView text);

    /// key(name) then value(v): one member of the open object.
    template <typename T> JsonWriter& field(const char* name, const T& v)
    {
        return key(name).value(v);
    }
    JsonWriter& nullField(const char* name) { return key(name).null(); }

    /// What was written, then a newline: one line of output.
    QByteArray take()
    {
        m_out += '\n';
        return std::move(m_out);
    }

private:
    JsonWriter& open(char bracket);
    JsonWriter& close(char bracket);
    JsonWriter& string(QByteArrayView utf8);
    void separate(); // the comma before the next value of an array, or member of an object
    void put(QByteArrayView bytes);
    void escaped(QByteArrayView validUtf8);

    QByteArray m_out;
    std::vector<bool> m_empty{true}; // per open bracket: nothing written in it yet
    bool m_afterKey = false;
};

} // namespace tollgate
