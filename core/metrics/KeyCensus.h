#pragma once

#include "core/metrics/MetricsSnapshot.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QObject>
#include <QTimer>
#include <chrono>
#include <optional>

namespace tollgate {

struct KeyCensusOptions
{
    std::chrono::milliseconds interval{10'000}; // from the end of one pass to the next
    std::chrono::milliseconds pause{20};        // between SCAN calls (the console's pace)
    int scanCount = 1000;                       // SCAN COUNT hint
};

/// What a scrape must not do: visit every subject. A background pass, paced (a pause between
/// SCAN calls), over every key of the prefix (client-side SCAN <p>:*, on every
/// primary of a cluster) with one pipelined PTTL per key, tallies subjects per action, bans in
/// force per action and scope, and keys of ours that need a TTL and have none (repair.lua's
/// rule: state keys and users' audit streams, and timed bans: HGET until_ms > 0). A scrape
/// reads the last complete result and its age. Lives on its creator's thread.
class KeyCensus : public QObject
{
    Q_OBJECT
public:
    KeyCensus(Client* client, KeySchema schema, KeyCensusOptions options,
              QObject* parent = nullptr);

    /// The first pass now, then one `interval` after each pass ends (or fails).
    void start();
    const std::optional<CensusResult>& last() const { return m_last; }
    qint64 passes() const { return m_passes; }

Q_SIGNALS:
    void passFinished();
    void passFailed(const tollgate::Error& error);

private:
    void runPass();
    void finished(Result<CensusResult> result);

    Client* m_client;
    KeySchema m_schema;
    KeyCensusOptions m_options;
    QTimer m_timer;
    std::optional<CensusResult> m_last;
    qint64 m_passes = 0;
};

} // namespace tollgate
