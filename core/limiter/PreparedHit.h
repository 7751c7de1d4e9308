#pragma once

#include "core/keys/KeyLayout.h"
#include "core/redis/CommandBuilder.h"
#include "tollgate/Policy.h"

#include <memory>
#include <vector>

namespace tollgate {

/// hit.lua's EVALSHA for one policy with everything policy-constant encoded once: the script's
/// SHA, the key suffixes, the algorithm, limits and windows (lua/README.md, hit.lua). The
/// policy is validated when prepared, not per hit; a hit escapes its user id once and adds the
/// user's keys, the id, and the cost or the zone's offsets only where they vary. A policy that
/// can never ban, warn or count a denial goes in the short form: no audit keys, no ids.
class PreparedHit
{
public:
    /// InvalidInput when the policy is invalid. The layout decides KEYS[4]: <p>:audit, or the
    /// user's audit stream again on a cluster (one slot per call).
    static Result<std::shared_ptr<const PreparedHit>> prepare(const Policy& policy,
                                                              const KeyLayout& layout);

    /// Whether `policy` is the one this was prepared from, for a server of this mode: every
    /// field hit.lua or the Limiter reads, the revision included, so an edited or re-read
    /// policy is prepared afresh.
    bool preparedFrom(const Policy& policy, bool cluster) const;
    /// The same policy with the windows of the user's limit override, in place of its own: the
    /// call carries hit.lua's marker "override", so the script redirects it back to the
    /// policy's windows when that override no longer applies (lua/README.md, "Overrides").
    static Result<std::shared_ptr<const PreparedHit>>
    prepareForOverride(const Policy& policy, const std::vector<WindowLimit>& windows,
                       const KeyLayout& layout);
    /// Whether the windows sent are an override's (prepareForOverride).
    bool forOverride() const { return m_forOverride; }
    /// The standalone layout.
    static Result<std::shared_ptr<const PreparedHit>> prepare(const Policy& policy,
                                                              const KeySchema& schema)
    {
        return prepare(policy, KeyLayout(schema, false));
    }
    const Policy& policy() const { return m_policy; }
    /// The layout it was prepared for (the TG_OVERRIDE redirect prepares another with it).
    KeyLayout layout() const { return KeyLayout(m_schema, m_cluster); }
    qsizetype keyCount() const
    {
        return m_short ? 3 + qsizetype(m_stateKeys.size()) : fullFormKeys(m_stateKeys.size());
    }
    /// KEYS of hit.lua's full form (a peek's too): bans, overrides, audit and statistics, then
    /// one per window.
    static qsizetype fullFormKeys(size_t windows) { return 5 + qsizetype(windows); }
    /// Whether hits go in hit.lua's short form (a policy without warn level, bans, counted
    /// denials or local time; lua/README.md).
    bool shortForm() const { return m_short; }

    /// EVALSHA (hit) or EVALSHA_RO (peek) for one user; cost 0 = the policy's. InvalidInput
    /// for an empty or too long id or a cost out of range.
    Result<EncodedCommand> command(bool peek, const QByteArray& user, qint64 cost) const;

private:
    static Result<std::shared_ptr<const PreparedHit>> build(const Policy& policy,
                                                            const KeyLayout& layout,
                                                            bool forOverride);

    // One of the user's keys: head + escaped user + tail ("tg:{" + id + "}:ban").
    struct UserKey
    {
        QByteArray head;
        QByteArray tail;
    };

    Policy m_policy;
    KeySchema m_schema;
    bool m_cluster = false; // KEYS[4] is then KEYS[3] again, not m_globalAudit
    bool m_short = false;   // no KEYS[4..5], ARGV = mode, algorithm, cost, m_tail
    bool m_forOverride = false; // m_tail ends with the marker "override"
    UserKey m_userBan, m_actionBan, m_overrides, m_userAudit;
    std::vector<UserKey> m_stateKeys;
    qsizetype m_argumentCount = 0;
    qsizetype m_constantBytes = 0;      // size hint for the command buffer
    RespFragment m_hitHead, m_peekHead; // EVALSHA[_RO] sha numkeys
    RespFragment m_globalAudit;         // KEYS[5] standalone
    RespFragment m_hitMode, m_peekMode; // ARGV[1..2]: mode, algorithm
    RespFragment m_policyCost;          // ARGV[3] when the caller passes 0
    RespFragment m_rules;               // ARGV[4..7]: count_denied, warn, ban_ms, ban_until
    RespFragment m_noOffsets;           // ARGV[8] "0" for policies without local time
    RespFragment m_tail;                // ARGV[10..]: action, channel, align, limit/window pairs
                                        // (short form: the pairs alone)
};

} // namespace tollgate
