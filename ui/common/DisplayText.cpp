#include "ui/common/DisplayText.h"

#include "core/keys/IdText.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>
#include <algorithm>

namespace tollgate::ui {

namespace {

QString hexByte(uchar byte)
{
    return QStringLiteral("\\x%1").arg(byte, 2, 16, QLatin1Char('0'));
}

// Escapes characters that would break one table line or that are invisible.
void appendSafe(QString& out, char32_t c)
{
    switch (c) {
    case U'\n':
        out += QStringLiteral("\\n");
        return;
    case U'\r':
        out += QStringLiteral("\\r");
        return;
    case U'\t':
        out += QStringLiteral("\\t");
        return;
    case U'\\':
        out += QStringLiteral("\\\\");
        return;
    default:
        break;
    }
    const QChar::Category category = QChar::category(c);
    if (c < 0x20 || c == 0x7f || category == QChar::Other_Control ||
        category == QChar::Other_Format || category == QChar::Separator_Line ||
        category == QChar::Separator_Paragraph) {
        out += QStringLiteral("\\u{%1}").arg(uint(c), 0, 16);
        return;
    }
    out += QString::fromUcs4(&c, 1);
}

} // namespace

QString displayId(const QByteArray& id)
{
    // Most ids are printable ASCII: nothing to decode or escape (tables call this per cell).
    const bool plain = std::all_of(id.cbegin(), id.cend(),
                                   [](char c) { return c >= 0x20 && c < 0x7f && c != '\\'; });
    if (plain)
        return QString::fromLatin1(id);
    QString out;
    out.reserve(id.size());
    // One code point at a time so an invalid byte is shown as \xNN, not as U+FFFD (and U+FEFF
    // as \u{feff}, not dropped as a byte-order mark).
    qsizetype i = 0;
    while (i < id.size()) {
        const int length = utf8SequenceLength(id, i);
        if (length == 0) {
            out += hexByte(uchar(id[i]));
            ++i;
            continue;
        }
        for (char32_t c : idToText(id.mid(i, length)).toUcs4())
            appendSafe(out, c);
        i += length;
    }
    return out;
}

QString boundedText(QByteArrayView bytes, qsizetype maxBytes, QString (*show)(const QByteArray&))
{
    if (bytes.size() <= maxBytes)
        return show(bytes.toByteArray());
    qsizetype cut = maxBytes;
    while (cut > 0 && (uchar(bytes[cut]) & 0xC0) == 0x80) // not inside a UTF-8 sequence
        --cut;
    return show(bytes.first(cut).toByteArray()) +
           QStringLiteral("… (%1 bytes)").arg(QLocale().toString(bytes.size()));
}

QString boundedDisplayId(QByteArrayView id, qsizetype maxBytes)
{
    return boundedText(id, maxBytes, &displayId);
}

QString formatCountdown(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("—");
    if (ms < 60'000)
        return QString::number(ms / 1000.0, 'f', 1) + QLatin1Char('s');
    const qint64 s = ms / 1000;
    auto two = [](qint64 v) { return QStringLiteral("%1").arg(v, 2, 10, QLatin1Char('0')); };
    if (s < 3600)
        return QString::number(s / 60) + QStringLiteral("m ") + two(s % 60) + QLatin1Char('s');
    if (s < 86400)
        return QString::number(s / 3600) + QStringLiteral("h ") + two(s / 60 % 60) +
               QLatin1Char('m');
    return QString::number(s / 86400) + QStringLiteral("d ") + two(s / 3600 % 24) +
           QLatin1Char('h');
}

QString wrongTypeText(const QByteArray& type, const QByteArray& expected)
{
    return QCoreApplication::translate("DisplayText",
                                       "this is a %1, but a key in this place of Tollgate's "
                                       "schema must be a %2. Every script touching it fails "
                                       "with WRONGTYPE until it is deleted.")
        .arg(QString::fromLatin1(type), QString::fromLatin1(expected));
}

QString banCountdown(qint64 banLeftMs)
{
    return banLeftMs < 0 ? QCoreApplication::translate("DisplayText", "never")
                         : formatCountdown(banLeftMs);
}

QString countText(qint64 count, const QString& one, const QString& many)
{
    return QString::number(count) + QLatin1Char(' ') + (count == 1 ? one : many);
}

QString formatTime(qint64 epochMs)
{
    if (epochMs <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString formatPreciseTime(qint64 epochMs)
{
    if (epochMs <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(
        QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

} // namespace tollgate::ui
