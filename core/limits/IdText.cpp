#include "core/limits/IdText.h"

namespace tollgate {

namespace {

constexpr char16_t kEscapeBase = 0xDC00; // U+DC80..U+DCFF carry the bytes 0x80..0xFF

} // namespace

int utf8SequenceLength(const QByteArray& bytes, qsizetype i)
{
    const auto at = [&bytes](qsizetype k) {
        return k < bytes.size() ? static_cast<unsigned char>(bytes[k]) : 0;
    };
    const unsigned char c = at(i);
    if (c < 0x80)
        return 1;
    int length = 0;
    unsigned char low = 0x80, high = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        length = 3;
        low = c == 0xE0 ? 0xA0 : 0x80;
        high = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4;
        low = c == 0xF0 ? 0x90 : 0x80;
        high = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (at(i + 1) < low || at(i + 1) > high)
        return 0;
    for (int k = 2; k < length; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xBF)
            return 0;
    }
    return length;
}

QString idToText(const QByteArray& id)
{
    QString text;
    text.reserve(id.size());
    for (qsizetype i = 0; i < id.size();) {
        const int length = utf8SequenceLength(id, i);
        if (length == 0) {
            text += QChar(char16_t(kEscapeBase + static_cast<unsigned char>(id[i])));
            ++i;
        } else {
            text += QString::fromUtf8(id.constData() + i, length);
            i += length;
        }
    }
    return text;
}

QByteArray idFromText(const QString& text)
{
    QByteArray id;
    id.reserve(text.size());
    qsizetype runStart = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        const bool escaped = i < text.size() && text[i].unicode() >= kEscapeBase + 0x80 &&
                             text[i].unicode() <= kEscapeBase + 0xFF;
        if (i < text.size() && !escaped)
            continue;
        id += QStringView(text).mid(runStart, i - runStart).toUtf8();
        if (escaped)
            id += static_cast<char>(text[i].unicode() - kEscapeBase);
        runStart = i + 1;
    }
    return id;
}

} // namespace tollgate
