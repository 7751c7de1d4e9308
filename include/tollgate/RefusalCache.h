#pragma once

// RefusalCache and RefusalCacheFeed: refusals answered from memory until they end, kept true
// to Redis by the events channel.

#include "tollgate/ConnectionOptions.h"
#include "tollgate/HitResult.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Moderation.h"
#include "tollgate/Policy.h"

#include <QByteArray>
#include <QMutex>
#include <QObject>
#include <array>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace tollgate {

/// Refusals answered from memory: a hit that Redis refused with a known end (a ban's until, a
/// window's retry-after) is refused again, with the same reply, until that moment, without a
/// round trip. Exact because hit.lua says until when the refusal holds, and because every write
/// that could lift one early (unban, reset, an override, a policy change) is on the events
/// channel and forgets the entries it touches (RefusalCacheFeed).
///
/// Not cached: shadow hits, peeks, answers of the failure policy, policies that count denied
/// hits (each refused hit must still reach Redis; in a fixed window a refusal holds until the
/// window ends whatever is counted, so those are cached), and a retry-after of 0. A window's
/// refusal holds for the same or a larger cost only; a ban for every cost. Bounded by bytes, least
/// recently used first out; thread-safe (sharded locks).
class RefusalCache
{
public:
    static constexpr qint64 kDefaultMaxBytes = 64LL << 20;
    /// A permanent ban (retry-after -1) is held at most this long between confirmations: an
    /// unban missed while the events connection was down is then seen within it.
    static constexpr qint64 kMaxHoldMs = 60'000;

    struct Stats
    {
        qint64 entries = 0;
        qint64 bytes = 0;
        qint64 hits = 0;   // hits answered from memory
        qint64 misses = 0; // lookups that went to Redis
        qint64 evictions = 0;
    };

    explicit RefusalCache(qint64 maxBytes = kDefaultMaxBytes);

    /// The refusal of `user` for `policy` at `cost`, if one holds now: the stored reply with its
    /// retry-after and reset counted down.
    std::optional<HitResult> answer(const Policy& policy, const QByteArray& user, qint64 cost);
    /// Keeps `hit` if it is a refusal that may be answered from memory (see above).
    void remember(const Policy& policy, const QByteArray& user, qint64 cost, const HitResult& hit);

    /// Forgets the user's refusals of `action`, or of every action when `action` is empty or "*".
    void forgetUser(const QByteArray& user, const QByteArray& action = {});
    /// Forgets every refusal of `action` (its policy changed).
    void forgetAction(const QByteArray& action);
    void clear();

    /// While inactive, nothing is answered nor kept: RefusalCacheFeed turns it off while it
    /// cannot hear the events that lift refusals. Active from construction.
    void setActive(bool active);
    bool isActive() const { return m_active.loadAcquire() != 0; }

    Stats stats() const;
    qint64 maxBytes() const { return m_maxBytes; }

private:
    struct Entry
    {
        QByteArray key; // key(): shared with the index's, so the ids are held once
        HitResult hit;
        qint64 cost = 0;
        qint64 revision = 0;   // the policy's: another revision is another policy
        qint64 storedMs = 0;   // steady clock
        qint64 deadlineMs = 0; // steady clock
        qint64 bytes = 0;
    };
    using Lru = std::list<Entry>;
    struct Shard
    {
        mutable QMutex mutex;
        Lru lru;                                             // most recently used first
        std::unordered_map<QByteArray, Lru::iterator> index; // key(): action, NUL, user
        qint64 bytes = 0;
    };
    static constexpr size_t kShards = 16;

    static QByteArray key(const QByteArray& action, const QByteArray& user);
    Shard& shardOf(const QByteArray& key);
    void eraseLocked(Shard& shard, Lru::iterator it);

    const qint64 m_maxBytes;
    std::array<Shard, kShards> m_shards;
    mutable QMutex m_actionsMutex;
    std::set<QByteArray> m_actions; // every action ever cached: forgetUser() looks in each
    QAtomicInt m_active = 1;
    QAtomicInteger<qint64> m_hits = 0;
    QAtomicInteger<qint64> m_misses = 0;
    QAtomicInteger<qint64> m_evictions = 0;
};

class Client;
enum class ConnectionState;
class RefusalCache;

/// Keeps a RefusalCache true to Redis: subscribes the events channel on a connection of its
/// own and forgets what each write lifts (unban, reset, override: the user's refusals; policy:
/// everything, the policy's new revision then misses anyway). Every (re)subscription clears
/// the cache, since events sent while the connection was down are lost. Emits each event, for
/// callers that follow policies too. Lives on its creating thread.
class RefusalCacheFeed : public QObject
{
    Q_OBJECT
public:
    RefusalCacheFeed(ConnectionOptions options, KeySchema schema,
                     std::shared_ptr<RefusalCache> cache, QObject* parent = nullptr);
    ~RefusalCacheFeed() override;

    /// Connects and subscribes (again after every reconnect).
    void start();
    /// Whether the subscription is in force: while not, the cache stays empty.
    bool isSubscribed() const { return m_subscribed; }

Q_SIGNALS:
    void eventReceived(const tollgate::LimitEvent& event);
    /// The subscription is in force (first time, or after a reconnect).
    void subscribed();

private:
    void onMessage(const QByteArray& channel, const QByteArray& payload);

    void onState(Client* client, ConnectionState state);

    KeySchema m_schema;
    std::shared_ptr<RefusalCache> m_cache;
    // One server's connection, or through a Twemproxy pool one per backend: a script publishes
    // on the backend it runs on, so each must be heard. The cache is active while all are.
    std::vector<std::unique_ptr<Client>> m_clients;
    std::vector<Client*> m_subscribedClients;
    bool m_subscribed = false;
};

} // namespace tollgate
