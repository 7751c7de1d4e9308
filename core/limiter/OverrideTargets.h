#pragma once

#include "core/limiter/PreparedHit.h"

#include <QHash>
#include <QMutex>
#include <atomic>
#include <deque>
#include <memory>

namespace tollgate {

/// Where the hits of a user go whose limit override has other window lengths than the policy:
/// hit.lua answers TG_OVERRIDE <windows> and the Limiter sends the hit again with the
/// override's windows (lua/README.md, "Overrides"). Remembered per action and user, the next
/// hit goes there at once: one round trip instead of two. The script checks the marked call
/// against the override in force, atomically, so a stale target only costs the redirect it
/// would have cost anyway (an ended or deleted override answers "policy": forgotten; one with
/// other windows: replaced), never a decision with the wrong windows. A target belongs to the
/// policy it was prepared from: once that policy is prepared afresh (an edit), it is not used.
/// At most `capacity` users; the oldest entries make room. Safe from any thread.
class OverrideTargets
{
public:
    static constexpr size_t kDefaultCapacity = 4096;

    explicit OverrideTargets(size_t capacity = kDefaultCapacity) : m_capacity(capacity) {}

    /// The override's prepared hit remembered for `user` under `policy`, or null.
    std::shared_ptr<const PreparedHit> find(const std::shared_ptr<const PreparedHit>& policy,
                                            const QByteArray& user) const;
    /// Remembers `target` (prepareForOverride of `policy`) for `user`.
    void remember(const std::shared_ptr<const PreparedHit>& policy, const QByteArray& user,
                  std::shared_ptr<const PreparedHit> target);
    /// Forgets the user's target of `action`: their hits go by the policy's windows again.
    void forget(const QByteArray& action, const QByteArray& user);

    size_t size() const;

private:
    struct Entry
    {
        std::weak_ptr<const PreparedHit> policy;
        std::shared_ptr<const PreparedHit> target;
    };

    static QByteArray keyOf(const QByteArray& action, const QByteArray& user);

    const size_t m_capacity;
    mutable QMutex m_mutex;
    QHash<QByteArray, Entry> m_entries;
    // m_entries' size, read without the lock: while nobody is redirected (the common case) a
    // hit pays one atomic load here, not a key built and a lock taken
    std::atomic<size_t> m_size{0};
    std::deque<QByteArray> m_order; // insertion order, for making room (may name forgotten keys)
};

} // namespace tollgate
