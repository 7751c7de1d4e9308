#include "core/json/JsonWriter.h"

#include <QUtf8StringView>
#include <cstdio>
#include <cstring>

namespace tollgate {

void JsonWriter::put(QByteArrayView bytes)
{
    // (QByteArray::append is an insert() in Qt 6.4: several calls per byte run)
    const qsizetype at = m_out.size();
    m_out.resize(at + bytes.size());
    std::memcpy(m_out.data() + at, bytes.data(), size_t(bytes.size()));
}

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
    put(name);
    put("\":");
    m_afterKey = true;
    return *this;
}

JsonWriter& JsonWriter::string(QByteArrayView utf8)
{
    separate();
    // ASCII and valid UTF-8 (nearly every id) are written as they are; anything else goes
    // through QString, which turns each invalid sequence into U+FFFD.
    if (QUtf8StringView(utf8).isValidUtf8())
        escaped(utf8);
    else
        escaped(QString::fromUtf8(utf8).toUtf8());
    return *this;
}

void JsonWriter::escaped(QByteArrayView utf8)
{
    static constexpr char kHex[] = "0123456789abcdef";
    m_out += '"';
    qsizetype plain = 0; // runs that need no escape are copied at once
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put(utf8.sliced(plain, i - plain));
        plain = i + 1;
        m_out += '\\';
        switch (c) {
        case '"':
            m_out += '"';
            break;
        case '\\':
            m_out += '\\';
            break;
        case '\b':
            m_out += 'b';
            break;
        case '\f':
            m_out += 'f';
            break;
        case '\n':
            m_out += 'n';
            break;
        case '\r':
            m_out += 'r';
            break;
        case '\t':
            m_out += 't';
            break;
        default:
            m_out += "u00";
            m_out += kHex[c >> 4];
            m_out += kHex[c & 0xF];
        }
    }
    put(utf8.sliced(plain));
    m_out += '"';
}

JsonWriter& JsonWriter::value(qint64 number)
{
    separate();
    char digits[24];
    put(QByteArrayView(
        digits, std::snprintf(digits, sizeof digits, "%lld", static_cast<long long>(number))));
    return *this;
}

JsonWriter& JsonWriter::value(bool flag)
{
    separate();
    put(flag ? "true" : "false");
    return *this;
}

JsonWriter& JsonWriter::null()
{
    separate();
    put("null");
    return *this;
}

JsonWriter& JsonWriter::json(QByteArrayView text)
{
    separate();
    put(text);
    return *this;
}

} // namespace tollgate
