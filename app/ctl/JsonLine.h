#pragma once

#include <QByteArray>
#include <QString>

namespace tollgate::ctl {

/// One compact JSON object written straight into bytes, for output that prints a line per row:
/// `subjects --json` over a million subjects spent ~80,000 instructions a line building a
/// QJsonObject and serializing it with QJsonDocument. Strings come out as QJsonDocument writes
/// them: UTF-8 (ids that are no valid UTF-8 get U+FFFD, as QString::fromUtf8 gives), '"', '\'
/// and control characters escaped.
class JsonLine
{
public:
    JsonLine() { m_out.reserve(400); m_out += '{'; }

    JsonLine& field(const char* name, qint64 value);
    JsonLine& field(const char* name, int value) { return field(name, qint64(value)); }
    JsonLine& field(const char* name, bool value);
    JsonLine& field(const char* name, const QString& value);
    /// Raw id bytes (user, action), shown as text.
    JsonLine& idField(const char* name, const QByteArray& id);
    JsonLine& null(const char* name);
    /// A nested object: its fields follow, then end().
    JsonLine& object(const char* name);
    JsonLine& end();

    /// The finished object (nested ones closed), without a newline.
    QByteArray take();

private:
    void put(QByteArrayView bytes);
    void name(const char* name);
    void string(QByteArrayView utf8);

    QByteArray m_out;
    int m_depth = 1;
    bool m_first = true;
};

} // namespace tollgate::ctl
