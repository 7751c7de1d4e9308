#include "ui/keys/StateDecoding.h"

#include "core/policies/Duration.h"
#include "ui/common/DisplayText.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <map>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("StateDecoding", text);
}

QString n(qint64 value)
{
    return QString::number(value);
}

// "5 per 1m" when the policy's limit is known, else "a 1m window".
QString windowText(const ValueContext& context)
{
    const QString window = formatDuration(context.place.windowMs);
    return context.limit ? tr("%1 per %2").arg(*context.limit).arg(window)
                         : tr("a %1 window (no policy limit for it)").arg(window);
}

QString ofLimit(qint64 count, const ValueContext& context)
{
    return context.limit ? tr("%1 of %2").arg(count).arg(*context.limit) : n(count);
}

// Whole milliseconds from µs, rounded up: a wait of 0.4 ms is still a wait.
qint64 ceilMs(long double us)
{
    return qint64(std::ceil(us / 1000.0L));
}

} // namespace

DecodedValue decodeFixedWindow(const QByteArray& value, const ValueContext& context)
{
    DecodedValue out;
    out.headers = {tr("Reading"), tr("Value")};
    const qint64 count = value.toLongLong();
    out.rows << QStringList{tr("Units counted"), ofLimit(count, context)};
    out.summary = tr("%1 counted").arg(ofLimit(count, context));
    if (context.limit)
        out.rows << QStringList{tr("Remaining"), n(std::max<qint64>(0, *context.limit - count))};
    out.meaning = tr("Fixed-window counter of %1: %2 units counted in this window; it starts "
                     "again when the key expires (the TTL above).")
                      .arg(windowText(context), ofLimit(count, context));
    return out;
}

DecodedValue decodeTokenBucket(const QByteArray& value, const ValueContext& context)
{
    DecodedValue out;
    out.headers = {tr("Reading"), tr("Value")};
    static const QRegularExpression shape(QStringLiteral("^(\\d+)(?:\\+(\\d+)/(\\d+))?$"));
    const QRegularExpressionMatch parts = shape.match(QString::fromLatin1(value));
    if (!parts.hasMatch() || (parts.hasCaptured(3) && parts.captured(3).toLongLong() <= 0)) {
        out.rows << QStringList{tr("Stored value"), QString::fromLatin1(value)};
        out.meaning = tr("Not a theoretical arrival time (\"<µs>\" or \"<µs>+<num>/<den>\"): "
                         "hit.lua refuses this key as corrupt.");
        out.summary = tr("corrupt: not a theoretical arrival time");
        return out;
    }
    const qint64 wholeUs = parts.captured(1).toLongLong();
    const long double tat =
        (long double)wholeUs +
        (parts.hasCaptured(3) ? parts.captured(2).toDouble() / parts.captured(3).toDouble() : 0.0);
    out.rows << QStringList{tr("Theoretical arrival time (TAT)"),
                            formatPreciseTime(wholeUs / 1000)};
    out.rows << QStringList{tr("Stored value (µs)"), QString::fromLatin1(value)};
    out.meaning = tr("Token bucket (GCRA) of %1. The value is the theoretical arrival time: "
                     "each unit moves it on by window / limit, and the bucket is full again "
                     "when it is reached.")
                      .arg(windowText(context));
    out.summary = tr("full at %1").arg(formatPreciseTime(wholeUs / 1000));
    if (context.serverNowUs <= 0)
        return out;
    const long double ahead = tat - (long double)context.serverNowUs;
    const QString full = ahead > 0 ? formatCountdown(ceilMs(ahead)) : tr("full now");
    out.rows << QStringList{tr("Full again in"), full};
    out.summary = ahead > 0 ? tr("full again in %1").arg(full) : full;
    if (!context.limit || context.place.windowMs <= 0)
        return out;
    const qint64 limit = *context.limit;
    const long double perToken = (long double)context.place.windowMs * 1000.0L / limit;
    const qint64 used = ahead > 0 ? qint64(std::ceil(ahead / perToken)) : 0;
    const qint64 available = std::max<qint64>(0, limit - used);
    out.rows << QStringList{tr("Tokens available now"), tr("%1 of %2").arg(available).arg(limit)};
    const QString next =
        used > 0 ? formatCountdown(ceilMs(ahead - (used - 1) * perToken)) : tr("none missing");
    out.rows << QStringList{tr("Next token in"), next};
    out.summary = used > 0 ? tr("tokens %1 / %2, next in %3").arg(available).arg(limit).arg(next)
                           : tr("tokens %1 / %2 (full)").arg(available).arg(limit);
    out.meaning += QLatin1Char(' ') + tr("Now %1 of %2 tokens are available; the next one comes "
                                         "in %3.")
                                          .arg(available)
                                          .arg(limit)
                                          .arg(used > 0 ? next : tr("— (the bucket is full)"));
    return out;
}

DecodedValue decodeSlidingLog(const QList<QPair<QByteArray, QByteArray>>& members,
                              const ValueContext& context)
{
    DecodedValue out;
    out.headers = {tr("Hit time"), tr("Units"), tr("Running total"), tr("Score (µs)")};
    const qint64 cutUs = context.serverNowUs - context.place.windowMs * 1000;
    qint64 previous = -1;
    qint64 base = 0; // total of the newest member at or before the window's start
    bool baseFound = false;
    for (const auto& [member, score] : members) {
        const qint64 total = member.toLongLong();
        const qint64 us = score.toLongLong();
        out.rows << QStringList{formatPreciseTime(us / 1000),
                                previous < 0 ? tr("(first shown)") : n(total - previous), n(total),
                                QString::fromLatin1(score)};
        if (context.serverNowUs > 0 && us <= cutUs) {
            base = total;
            baseFound = true;
        }
        previous = total;
    }
    out.meaning = tr("Sliding log of %1: one member per counted hit, its score the hit's time "
                     "in µs, its name the running total of units.")
                      .arg(windowText(context));
    if (context.size >= 0) // the log's size is all a reader of its ZCARD knows
        out.summary = countText(context.size, tr("hit logged"), tr("hits logged"));
    if (context.serverNowUs <= 0 || members.isEmpty())
        return out;
    const qint64 newest = members.last().first.toLongLong();
    const bool whole = members.size() >= context.size || context.size < 0;
    if (!baseFound && !whole) {
        out.meaning +=
            QLatin1Char(' ') + tr("At least %1 units in the window now (more members than shown).")
                                   .arg(newest - members.first().first.toLongLong());
        out.summary =
            tr("at least %1 in the window").arg(newest - members.first().first.toLongLong());
        return out;
    }
    out.meaning += QLatin1Char(' ') + tr("Units in the window now: %1 (the newest total "
                                         "minus the last total before the window's start).")
                                          .arg(ofLimit(newest - base, context));
    out.summary = tr("%1 in the window").arg(ofLimit(newest - base, context));
    return out;
}

DecodedValue decodeSlidingWindow(const QList<QPair<QByteArray, QByteArray>>& fields,
                                 const ValueContext& context)
{
    DecodedValue out;
    out.headers = {tr("Field"), tr("Value"), tr("Meaning")};
    qint64 start = 0, cur = 0, prev = 0;
    for (const auto& [field, value] : fields) {
        QString meaning;
        if (field == "start") {
            start = value.toLongLong();
            meaning = tr("this window began %1").arg(formatPreciseTime(start));
        } else if (field == "cur") {
            cur = value.toLongLong();
            meaning = tr("units counted in that window");
        } else if (field == "prev") {
            prev = value.toLongLong();
            meaning = tr("units counted in the window before it");
        }
        out.rows << QStringList{QString::fromUtf8(field), QString::fromUtf8(value), meaning};
    }
    out.meaning = tr("Sliding-window counter of %1 over aligned windows.").arg(windowText(context));
    const qint64 window = context.place.windowMs;
    if (context.serverNowUs <= 0 || window <= 0)
        return out;
    // As hit.lua reads it: the window of now, the one before weighed by its part still inside.
    const qint64 nowMs = context.serverNowUs / 1000;
    const qint64 windowStart = nowMs / window * window;
    if (start < windowStart) {
        prev = start == windowStart - window ? cur : 0;
        cur = 0;
    }
    const qint64 elapsed = nowMs - windowStart;
    const auto weighed = qint64((long double)prev * (long double)(window - elapsed) / window);
    out.meaning += QLatin1Char(' ') + tr("Counted now: %1 (%2 this window, %3 of the previous "
                                         "window's %4 still inside the last %5).")
                                          .arg(ofLimit(weighed + cur, context))
                                          .arg(cur)
                                          .arg(weighed)
                                          .arg(prev)
                                          .arg(formatDuration(window));
    out.summary = tr("%1 counted now").arg(ofLimit(weighed + cur, context));
    return out;
}

DecodedValue decodeStatsRing(const QList<QPair<QByteArray, QByteArray>>& fields)
{
    DecodedValue out;
    out.headers = {tr("Second"), tr("Hits"), tr("Cost"),       tr("Warnings"),
                   tr("Denied"), tr("Bans"), tr("Would deny"), tr("Would ban")};
    // stats.lua's slot fields, in header order (wd and wb: a shadow policy's would-be outcomes)
    static const QList<QByteArray> kColumns = {"t", "h", "c", "w", "d", "b", "wd", "wb"};
    const int width = int(kColumns.size());
    std::map<qint64, QStringList> slots; // by slot number
    QStringList totals;
    QList<QStringList> other;
    // The history fields (s<second % 300>, m<minute % 1440>) feed the Dashboard's 5 min, 1 h
    // and 24 h charts: counted here, not listed, so the table stays one row per ring second.
    static const QRegularExpression history(QStringLiteral("^[sm]\\d+$"));
    qint64 historySeconds = 0, historyMinutes = 0;
    qint64 hits = 0, denied = 0;
    for (const auto& [field, value] : fields) {
        if (history.match(QString::fromLatin1(field)).hasMatch()) {
            ++(field.startsWith('s') ? historySeconds : historyMinutes);
            continue;
        }
        const int colon = int(field.indexOf(':'));
        const QByteArray head = field.left(colon), tail = field.mid(colon + 1);
        bool numeric = false;
        const qint64 slot = head.toLongLong(&numeric);
        const int column = int(kColumns.indexOf(tail));
        if (colon > 0 && numeric && column >= 0) {
            QStringList& row = slots[slot];
            if (row.isEmpty())
                row = QStringList(width, QString());
            row[column] =
                column == 0 ? formatTime(value.toLongLong() * 1000) : QString::fromLatin1(value);
            if (column == 0)
                row << QString::fromLatin1(value); // the second, for sorting; dropped below
        } else if (head == "total") {
            totals << QStringLiteral("%1 %2").arg(QString::fromLatin1(tail),
                                                  QString::fromLatin1(value));
            if (tail == "h" || tail == "d")
                (tail == "h" ? hits : denied) = value.toLongLong();
        } else {
            other << QStringList{QString::fromUtf8(field), QString::fromUtf8(value)};
        }
    }
    QList<QStringList> rows;
    for (auto& [slot, row] : slots)
        if (row.size() == width + 1)
            rows << row;
    std::sort(rows.begin(), rows.end(), [width](const QStringList& a, const QStringList& b) {
        return a.at(width).toLongLong() > b.at(width).toLongLong();
    });
    for (QStringList& row : rows)
        row.removeLast();
    out.rows = rows + other;
    out.meaning = tr("Statistics ring of stats.lua: the outcomes of each second it holds "
                     "(one slot per second, 120 slots), newest first. Totals since the key was "
                     "made (h hits, c cost, w warnings, d denied, b bans, ab/mb automatic and "
                     "manual bans, wd/wb would deny and would ban): %1.")
                      .arg(totals.isEmpty() ? tr("none") : totals.join(QStringLiteral(", ")));
    out.meaning += QLatin1Char(' ') + tr("History for the charts: %1 of the last 300 seconds and "
                                         "%2 of the last 1,440 minutes hold counts.")
                                          .arg(historySeconds)
                                          .arg(historyMinutes);
    out.summary = tr("%1 hits, %2 denied in total").arg(hits).arg(denied);
    return out;
}

} // namespace tollgate::ui
