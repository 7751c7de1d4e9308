#include "core/policies/ZoneOffsets.h"

#include "core/policies/Duration.h"

#include <QDateTime>
#include <QHash>
#include <QMutex>
#include <QTimeZone>

namespace tollgate {

bool isKnownZone(const QByteArray& ianaId)
{
    return !ianaId.isEmpty() && QTimeZone(ianaId).isValid();
}

Result<QByteArray> zoneOffsets(const QByteArray& ianaId, qint64 fromMs, qint64 toMs)
{
    const QTimeZone zone(ianaId);
    if (ianaId.isEmpty() || !zone.isValid())
        return Error{
            ErrorKind::InvalidInput,
            QStringLiteral("unknown time zone '%1' (use an IANA name such as Europe/Berlin)")
                .arg(QString::fromUtf8(ianaId))};
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(fromMs, Qt::UTC);
    qint64 offsetMs = qint64(zone.offsetFromUtc(from)) * 1000;
    QByteArray text = QByteArray::number(offsetMs);
    if (!zone.hasTransitions())
        return text;
    const auto changes = zone.transitions(from, QDateTime::fromMSecsSinceEpoch(toMs, Qt::UTC));
    for (const QTimeZone::OffsetData& change : changes) {
        const qint64 at = change.atUtc.toMSecsSinceEpoch();
        const qint64 offset = qint64(change.offsetFromUtc) * 1000;
        // Only offset changes matter; a renamed abbreviation with the same offset does not.
        if (at <= fromMs || offset == offsetMs)
            continue;
        text += ',' + QByteArray::number(at) + ':' + QByteArray::number(offset);
        offsetMs = offset;
    }
    return text;
}

Result<QByteArray> zoneOffsetsAroundNow(const QByteArray& ianaId)
{
    struct Cached
    {
        qint64 computedDay = -1;
        QByteArray text;
    };
    static QMutex mutex;
    static QHash<QByteArray, Cached> cache;

    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 today = now / kMillisPerDay;
    QMutexLocker lock(&mutex);
    Cached& entry = cache[ianaId];
    if (entry.computedDay != today) {
        auto text = zoneOffsets(ianaId, now - 2 * kMillisPerDay, now + 40 * kMillisPerDay);
        if (!text) {
            cache.remove(ianaId);
            return text.error();
        }
        entry = {today, *text};
    }
    return entry.text;
}

Result<QByteArray> zoneOffsetsForPolicy(const QByteArray& ianaId)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    return zoneOffsets(ianaId, now - kMillisPerDay, now + 10 * kMillisPerYear);
}

} // namespace tollgate
