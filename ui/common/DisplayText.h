#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace tollgate::ui {

/// An id (arbitrary bytes) as one safe line of text: valid UTF-8 is kept, control characters
/// and invalid bytes are escaped (\n, \t, \xNN), so no id can break a layout or fake a line.
QString displayId(const QByteArray& id);
/// displayId() of at most the id's first `maxBytes` bytes (whole UTF-8 sequences), followed by
/// "… (1,048,576 bytes)" when cut: a cell, tooltip or title of a 1 MB id costs what others do.
QString boundedDisplayId(QByteArrayView id, qsizetype maxBytes = 256);
/// The same bound for any way of showing bytes (`show`, e.g. the Keys page's escaping).
QString boundedText(QByteArrayView bytes, qsizetype maxBytes, QString (*show)(const QByteArray&));

/// A countdown for tables: "—" when over, "12.4s" under a minute (tenths make it move
/// smoothly), "4m 05s", "2h 03m", "3d 04h".
QString formatCountdown(qint64 ms);
/// A banned row's "Resets in" on every page: what resets is the ban, not the counter;
/// `banLeftMs` is the ms until it ends, -1 for a permanent ban ("never").
QString banCountdown(qint64 banLeftMs);

/// An epoch-ms time stamp in local time, "2024-05-01 13:45:10".
QString formatTime(qint64 epochMs);
/// The same with milliseconds, "2024-05-01 13:45:10.123", for hit times and the like.
QString formatPreciseTime(qint64 epochMs);

/// Why a key of the wrong Redis type (written by another tool) breaks Tollgate: "this is a
/// string, but a key in this place of Tollgate's schema must be a hash. Every script ...".
QString wrongTypeText(const QByteArray& type, const QByteArray& expected);

/// "1 ban", "3 bans" (the console ships no translations, so %n plurals would read "ban(s)").
QString countText(qint64 count, const QString& one, const QString& many);

} // namespace tollgate::ui
