#include "core/keys/IdText.h"

#include <QStringDecoder>

namespace tollgate {

namespace {

constexpr char16_t kEscapeBase = 0xDC00; // U+DC80..U+DCFF carry the bytes 0x80..0xFF

// Appends the code point of one well-formed sequence, decoded by hand: QString::fromUtf8() or
// fromUcs4() on a lone sequence would drop U+FEFF as a byte-order mark ("m<U+FEFF>m" == "mm").
void appendCodePoint(QString& text, const QByteArray& bytes, qsizetype i, int length)
{
    const auto byte = [&bytes, i](int k) { return static_cast<unsigned char>(bytes[i + k]); };
    static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    char32_t codePoint = byte(0) & kLeadMask[length];
    for (int k = 1; k < length; ++k)
        codePoint = (codePoint << 6) | (byte(k) & 0x3F);
    if (QChar::requiresSurrogates(codePoint)) {
        text += QChar(QChar::highSurrogate(codePoint));
        text += QChar(QChar::lowSurrogate(codePoint));
    } else {
        text += QChar(char16_t(codePoint));
    }
}

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
            appendCodePoint(text, id, i, length);
            i += length;
        }
    }
    return text;
}

QString idToDisplayText(const QByteArray& id)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
    return decoder(id);
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
