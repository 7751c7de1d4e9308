#pragma once

#include "core/metrics/MetricsSnapshot.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QObject>
#include <functional>

namespace tollgate {

/// Something a scrape met, for the error counter and the exporter's log.
struct ScrapeProblem
{
    QString kind; // errorKindName(), or "corrupt_stats" / "invalid_policy"
    QString message;
};

/// What one scrape reads from Redis: O(number of actions), never O(subjects).
///   TIME                                         Redis answers (tollgate_redis_up)
///   SMEMBERS <p>:policies, HGETALL per policy    the policies (PolicyStore::listAll)
///   HMGET <p>:stats:<action> total:* per action  the hit and ban counters (lua/stats.lua),
///                                                plus "*" for user-wide bans
/// On a cluster each key goes to the primary that owns it. A stats hash of the wrong type or
/// with a field that is no integer is reported and leaves that action out; the rest is served.
class ScrapeCollector : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(MetricsSnapshot, std::vector<ScrapeProblem>)>;

    ScrapeCollector(Client* client, KeySchema schema, QObject* parent = nullptr);

    /// Reads what a scrape shows (not the census) and calls `done` on this object's thread.
    void collect(Done done);

    /// The stats fields read per action, in the order of ActionTotals.
    static const QList<QByteArray>& totalFields();

private:
    struct Run;
    void readTotals(std::shared_ptr<Run> run);

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
