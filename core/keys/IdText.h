#pragma once

#include <QByteArray>
#include <QString>

namespace tollgate {

/// Ids are bytes; people and command lines deal in text. These keep every byte string intact.

/// Length of the well-formed UTF-8 sequence starting at `i` (Unicode table 3-7: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or 0 when the byte there starts none.
int utf8SequenceLength(const QByteArray& bytes, qsizetype i);

/// UTF-8 decoded, but a byte that is not part of well-formed UTF-8 becomes the lone surrogate
/// U+DC80 + (byte - 0x80) instead of U+FFFD (Python's "surrogateescape"): 0xFF, 0xFE and U+FFFD
/// stay three different strings. idFromText() gives the bytes back exactly.
QString idToText(const QByteArray& id);
/// The inverse of idToText(): U+DC80..U+DCFF become the bytes 0x80..0xFF, the rest UTF-8.
QByteArray idFromText(const QString& text);

/// For output that must be valid UTF-8 (JSON, a terminal): decoded as QString::fromUtf8() does
/// (what is not well-formed UTF-8 becomes U+FFFD), except that a leading U+FEFF is kept as the
/// character of the id it is, not dropped as a byte-order mark.
QString idToDisplayText(const QByteArray& id);

} // namespace tollgate
