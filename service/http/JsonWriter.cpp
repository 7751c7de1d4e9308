#include "service/http/JsonWriter.h"

#include <QUtf8StringView>

namespace tollgate::service {

void JsonWriter::separate()
{
    if (m_afterKey) { // a member's value: the key wrote the comma
        m_afterKey = false;
        return;
    }
    if (!m_empty.back())
        m_out += ',';
    m_empty.back() = false;
}

JsonWriter& JsonWriter::open(char bracket)
{
    separate();
    m_out += bracket;
    m_empty.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close(char bracket)
{
    m_out += bracket;
    if (m_empty.size() > 1)
        m_empty.pop_back();
    return *this;
}

JsonWriter& JsonWriter::key(const char* name)
{
    separate();
    m_out += '"';
    m_out += name;
    m_out += "\":";
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::value(const QByteArray& utf8)
{
    separate();
    static constexpr char kHex[] = "0123456789abcdef";
    const QByteArray text =
        QUtf8StringView(utf8).isValidUtf8() ? utf8 : QString::fromUtf8(utf8).toUtf8();
    m_out.reserve(m_out.size() + text.size() + 2);
    m_out += '"';
    for (const char c : text) {
        switch (c) {
        case '"':
            m_out += "\\\"";
            break;
        case '\\':
            m_out += "\\\\";
            break;
        case '\n':
            m_out += "\\n";
            break;
        case '\r':
            m_out += "\\r";
            break;
        case '\t':
            m_out += "\\t";
            break;
        default:
            if (uchar(c) < 0x20) {
                m_out += "\\u00";
                m_out += kHex[uchar(c) >> 4];
                m_out += kHex[uchar(c) & 0xf];
            } else {
                m_out += c;
            }
        }
    }
    m_out += '"';
    return *this;
}

JsonWriter& JsonWriter::value(qint64 number)
{
    separate();
    m_out += QByteArray::number(number);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag)
{
    separate();
    m_out += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::json(const QByteArray& text)
{
    separate();
    m_out += text;
    return *this;
}

} // namespace tollgate::service
