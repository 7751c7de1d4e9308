#pragma once

#include "tollgate/Client.h"
#include "tollgate/HitResult.h"
#include "tollgate/KeySchema.h"

#include <QHash>
#include <QMutex>
#include <chrono>
#include <memory>

namespace tollgate {

/// The console's per-second statistics (`<p>:stats:<action>`, lua/stats.lua) off the hot path:
/// a client's hit outcomes are added up in memory and written at most once a second per
/// action, in the middle of a second, all actions in one pipelined write, and once more when
/// the client closes. A flush
/// that fails is dropped: it never blocks or fails a hit. One per client and key prefix.
class HitStats : public ClientAttachment, public std::enable_shared_from_this<HitStats>
{
public:
    static constexpr std::chrono::milliseconds kInterval{1000};

    /// The client's statistics for `schema`'s prefix, made on first use.
    static std::shared_ptr<HitStats> of(Client* client, const KeySchema& schema);

    HitStats(Client* client, KeySchema schema);

    /// Adds one hit decided by Redis; `autoBan`: a deny of it created an automatic ban (the
    /// policy bans); `shadow`: a shadow policy's hit, whose deny or ban is only what enforcing
    /// would have done (counted as would deny / would ban, never as denied or banned).
    /// Thread-safe, never waits on the network.
    void record(const QByteArray& action, Tier tier, qint64 cost, bool autoBan = false,
                bool shadow = false);
    /// Writes what was added up so far now (one stats.lua call per action).
    void flush();
    /// Flushes sent so far (each one write of every pending action), for tests.
    quint64 flushCount() const;
    /// How long from `nowMs` (epoch ms) to the next middle of a second, when a flush goes.
    static std::chrono::milliseconds untilMidSecond(qint64 nowMs);

    void beforeClose() override;

private:
    struct Counts
    {
        qint64 hits = 0, cost = 0, warn = 0, denied = 0, banned = 0;
        qint64 autoBans = 0; // for the metrics exporter's tollgate_bans_created_total
        qint64 wouldDeny = 0, wouldBan = 0; // shadow policies' hits
    };

    Client* m_client;
    KeySchema m_schema;
    mutable QMutex m_mutex;
    QHash<QByteArray, Counts> m_pending;
    bool m_armed = false; // a flush is scheduled
    bool m_closed = false;
    quint64 m_flushes = 0;
};

} // namespace tollgate
