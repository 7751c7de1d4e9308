#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QByteArray>
#include <QString>
#include <vector>

namespace tollgate {

/// One running tollgated as it describes itself in the registry (lua/README.md, "Service
/// registry": the payload's JSON fields).
struct ServiceInstance
{
    QByteArray id; // "<host>:<pid>:<8 hex>", unique per process start
    QString host;
    qint64 pid = 0;
    QString version;
    QString configFile;
    QString configDigest; // sha256 hex of the applied config, first 12
    QString grpcAddress;  // "127.0.0.1:8081", empty when off
    QString httpAddress;
    qint64 startedMs = 0;
    qint64 lastSeenMs = 0; // filled by list(): the zset score (server clock)
    double decisionsPerSecond = 0;
    qint64 decisionsTotal = 0;
    qint64 cachedRefusals = 0;
    qint64 cacheBytes = 0;
    qint64 cacheHitsTotal = 0;
    bool ready = false;
    QString lastError;

    /// An instance announces every few seconds; one not seen for this long is shown as stale.
    static constexpr qint64 kStaleMs = 15'000;
    bool isStale(qint64 serverNowMs) const { return serverNowMs - lastSeenMs > kStaleMs; }

    /// The payload: a compact JSON object of every field but id and lastSeenMs.
    QByteArray toJson() const;
    /// The payload read back. Fields it lacks keep their defaults and unknown ones are ignored
    /// (another tollgated version may send fewer or more); anything but a JSON object, or a
    /// known field of the wrong type, is WrongType naming the id and the field.
    static Result<ServiceInstance> fromJson(const QByteArray& id, const QByteArray& json);
};

/// What the console and the CLI say of an instance: stale (not seen for kStaleMs, whatever it
/// last said) wins over its own ready flag.
enum class ServiceHealth
{
    Ready,
    NotReady,
    Stale
};
ServiceHealth serviceHealth(const ServiceInstance& instance, qint64 serverNowMs);
/// "ready", "not_ready", "stale": the JSON names.
QString serviceHealthName(ServiceHealth health);

/// The registry as list() read it.
struct ServiceList
{
    qint64 serverNowMs = 0;
    std::vector<ServiceInstance> instances; // sorted by host, then id
    std::vector<QString> unreadable; // "service <id>: <why>", for entries that cannot be shown
};

/// The registry of tollgated instances: <p>:{:}:services (id -> payload) and
/// <p>:{:}:services:seen (id -> last-seen ms), written only by service_announce.lua, which
/// keeps both under a 10-minute TTL and drops entries not seen for 10 minutes.
class ServiceRegistry
{
public:
    static constexpr int kMaxIdBytes = 256;
    static constexpr int kMaxPayloadBytes = 65'536;

    ServiceRegistry(Client* client, KeySchema schema);

    /// service_announce.lua "announce" (HSET + ZADD at the server's TIME, PEXPIRE both keys).
    /// Delivers the server's now in ms. InvalidInput, nothing sent, for an empty id, an id over
    /// kMaxIdBytes or a payload over kMaxPayloadBytes.
    void announce(const ServiceInstance& instance, Context context, Callback<qint64> done) const;
    /// service_announce.lua "withdraw" (HDEL + ZREM): the instance leaves at once instead of
    /// going stale. An id that is not registered is no error.
    void withdraw(const QByteArray& id, Context context, Callback<Unit> done) const;
    /// HGETALL + ZRANGE WITHSCORES + TIME in one pipeline. An entry in only one of the two keys,
    /// or with a payload fromJson() refuses, goes to `unreadable` with the reason.
    void list(Context context, Callback<ServiceList> done) const;

private:
    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
