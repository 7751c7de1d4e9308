#include "app/ctl/JsonLine.h"

#include "core/keys/IdText.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace tollgate::ctl {

void JsonLine::put(QByteArrayView bytes)
{
    // (QByteArray::append is an insert() in Qt 6.4: several calls per byte run)
    const qsizetype at = m_out.size();
    m_out.resize(at + bytes.size());
    std::memcpy(m_out.data() + at, bytes.data(), size_t(bytes.size()));
}

void JsonLine::name(const char* name)
{
    put(m_first ? "\"" : ",\"");
    m_first = false;
    put(name); // our own field names: plain ASCII, nothing to escape
    put("\":");
}

void JsonLine::string(QByteArrayView utf8)
{
    static const char hex[] = "0123456789abcdef";
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
        case '"': m_out += '"'; break;
        case '\\': m_out += '\\'; break;
        case '\b': m_out += 'b'; break;
        case '\f': m_out += 'f'; break;
        case '\n': m_out += 'n'; break;
        case '\r': m_out += 'r'; break;
        case '\t': m_out += 't'; break;
        default:
            m_out += "u00";
            m_out += hex[c >> 4];
            m_out += hex[c & 0xF];
        }
    }
    put(utf8.sliced(plain));
    m_out += '"';
}

JsonLine& JsonLine::field(const char* name, qint64 value)
{
    this->name(name);
    char digits[24];
    put(QByteArrayView(digits, std::snprintf(digits, sizeof digits, "%lld", static_cast<long long>(value))));
    return *this;
}

JsonLine& JsonLine::field(const char* name, bool value)
{
    this->name(name);
    put(value ? "true" : "false");
    return *this;
}

JsonLine& JsonLine::field(const char* name, const QString& value)
{
    this->name(name);
    string(value.toUtf8());
    return *this;
}

JsonLine& JsonLine::idField(const char* name, const QByteArray& id)
{
    this->name(name);
    // ASCII ids (nearly all) are their own UTF-8; anything else goes through QString, which
    // turns bytes that are no UTF-8 into U+FFFD exactly as the other outputs do (U+FEFF kept).
    const bool ascii = std::all_of(id.begin(), id.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    if (ascii)
        string(id);
    else
        string(idToDisplayText(id).toUtf8());
    return *this;
}

JsonLine& JsonLine::null(const char* name)
{
    this->name(name);
    put("null");
    return *this;
}

JsonLine& JsonLine::object(const char* name)
{
    this->name(name);
    m_out += '{';
    m_first = true;
    ++m_depth;
    return *this;
}

JsonLine& JsonLine::end()
{
    m_out += '}';
    m_first = false;
    --m_depth;
    return *this;
}

QByteArray JsonLine::take()
{
    while (m_depth > 0)
        end();
    return std::move(m_out);
}

} // namespace tollgate::ctl
