#include "core/limiter/HitStats.h"

#include "core/scripts/ScriptRunner.h"

#include <QDateTime>

namespace tollgate {

std::shared_ptr<HitStats> HitStats::of(Client* client, const KeySchema& schema)
{
    auto attached = client->attachment(QByteArrayLiteral("hit-stats:") + schema.prefix(),
                                       [&] { return std::make_shared<HitStats>(client, schema); });
    return std::static_pointer_cast<HitStats>(attached);
}

HitStats::HitStats(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema))
{
}

std::chrono::milliseconds HitStats::untilMidSecond(qint64 nowMs)
{
    const qint64 half = kInterval.count() / 2;
    const qint64 wait = (half - nowMs % kInterval.count() + kInterval.count()) % kInterval.count();
    return std::chrono::milliseconds(wait == 0 ? kInterval.count() : wait);
}

void HitStats::record(const QByteArray& action, Tier tier, qint64 cost, bool autoBan,
                      bool shadow)
{
    QMutexLocker lock(&m_mutex);
    if (m_closed)
        return;
    Counts& counts = m_pending[action];
    ++counts.hits;
    counts.cost += cost;
    counts.warn += tier == Tier::Warn ? 1 : 0;
    const bool denied = tier == Tier::Deny || tier == Tier::Banned;
    const bool banned = autoBan && tier == Tier::Deny;
    (shadow ? counts.wouldDeny : counts.denied) += denied ? 1 : 0;
    counts.banned += !shadow && tier == Tier::Banned ? 1 : 0;
    (shadow ? counts.wouldBan : counts.autoBans) += banned ? 1 : 0;
    if (m_armed)
        return;
    // The first outcome after a flush arms the next one, in the middle of the next second of
    // the clock: at most one write a second per action, each in a second of its own. (Flushes
    // a second apart from whenever they were armed drift a little later each time, and every
    // so often one second of the ring got none and the next two seconds' worth: the console's
    // charts dropped to 0 for every action at once.) The server's seconds are the ones that
    // count; a host clock within a few hundred ms of the server's keeps them apart.
    m_armed = true;
    lock.unlock();
    std::weak_ptr<HitStats> weak = weak_from_this();
    m_client->runLater(untilMidSecond(QDateTime::currentMSecsSinceEpoch()), [weak] {
        if (auto stats = weak.lock())
            stats->flush();
    });
}

void HitStats::flush()
{
    QHash<QByteArray, Counts> pending;
    {
        QMutexLocker lock(&m_mutex);
        pending.swap(m_pending);
        m_armed = false;
        if (pending.isEmpty())
            return;
        ++m_flushes;
    }
    // Back to back, so the connection sends them in one write; the replies are not awaited
    // by anyone (a lost flush loses those seconds' figures, nothing else).
    for (auto it = pending.cbegin(); it != pending.cend(); ++it) {
        const Counts& c = it.value();
        runScript(m_client, QStringLiteral("stats"), {m_schema.statsKey(it.key())},
                  {QByteArrayLiteral("counts"), QByteArray::number(c.hits),
                   QByteArray::number(c.cost), QByteArray::number(c.warn),
                   QByteArray::number(c.denied), QByteArray::number(c.banned),
                   QByteArray::number(c.autoBans), QByteArrayLiteral("0"),
                   QByteArray::number(c.wouldDeny), QByteArray::number(c.wouldBan)},
                  nullptr, [](const Result<Reply>&) {});
    }
}

quint64 HitStats::flushCount() const
{
    QMutexLocker lock(&m_mutex);
    return m_flushes;
}

void HitStats::beforeClose()
{
    flush();
    QMutexLocker lock(&m_mutex);
    m_closed = true;
}

} // namespace tollgate
