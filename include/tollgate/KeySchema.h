#pragma once

// KeySchema: where Tollgate keeps things in Redis, under a key prefix.

#include "tollgate/Policy.h"
#include "tollgate/Result.h"

#include <QByteArray>

namespace tollgate {

/// Where Tollgate keeps things in Redis (README "Key schema"):
///   <p>:{<user>}:<action>:<fw|sl|sw|tb>:<window_ms>   state of one user/action/window
///   <p>:{<user>}:<action>:ban                        ban of one action (hash)
///   <p>:{<user>}:ban                                 ban of every action (hash)
///   <p>:{<user>}:audit                               per-user audit stream
///   <p>:{<user>}:overrides                           the user's overrides (hash)
///   <p>:overrides                                    index of the users with overrides (zset)
///   <p>:policy:<action>                              policy hash
///   <p>:policies                                     index of the policy hashes (set)
///   <p>:policy:<action>:history                      earlier revisions of a policy (stream)
///   <p>:stats:<action>                               per-second hit statistics (hash)
///   <p>:audit                                        global audit stream
///   <p>:events                                       pub/sub channel
/// On a Redis Cluster the policy keys and the audit stream of policy changes share the fixed
/// hash tag "{:}" (no escaped id holds ':'), so each policy script touches one slot:
///   <p>:{:}:policy:<action>   <p>:{:}:policy:<action>:history   <p>:{:}:policies   <p>:{:}:audit
///   <p>:{:}:overrides
/// The registry of tollgated instances uses "{:}" on a single server too (service_announce.lua):
///   <p>:{:}:services (hash: id -> JSON)   <p>:{:}:services:seen (zset: id -> last-seen ms)
/// Which layout a call uses is decided in one place, KeyLayout.
/// User and action ids are arbitrary bytes, percent-escaped so that no id can contain
/// ':', '{', '}', glob characters or whitespace: every key parses back exactly, all keys of
/// one user share one Redis Cluster hash slot, and no id matches another user's SCAN pattern.
class KeySchema
{
public:
    static constexpr int kMaxIdBytes = 1024;

    explicit KeySchema(QByteArray prefix = QByteArrayLiteral("tg"));

    const QByteArray& prefix() const { return m_prefix; }

    static QByteArray escape(const QByteArray& id);
    static std::optional<QByteArray> unescape(QByteArrayView escaped);
    /// Non-empty and at most kMaxIdBytes; `what` names the id in the message ("user id").
    static Status validateId(const QByteArray& id, const QString& what);
    /// A prefix is 1..64 bytes without glob characters, braces, ':' or whitespace: anything
    /// else would let our SCAN patterns match other deployments' keys or move every user into
    /// one Cluster slot.
    static Status validatePrefix(const QByteArray& prefix);

    /// Every key of a user is "<p>:{<user>}" and a suffix: a reader of many subjects builds
    /// each suffix once per policy and the base once per user, and writes the two parts
    /// straight into its commands (PipelineBuilder::addParts) instead of building every key.
    QByteArray userBase(const QByteArray& user) const;
    static QByteArray stateSuffix(const QByteArray& action, Algorithm algorithm, qint64 windowMs);
    static QByteArray actionBanSuffix(const QByteArray& action);
    static constexpr const char* kUserBanSuffix = ":ban";
    static constexpr const char* kOverridesSuffix = ":overrides";

    QByteArray stateKey(const QByteArray& user, const QByteArray& action, Algorithm algorithm,
                        qint64 windowMs) const;
    QByteArray actionBanKey(const QByteArray& user, const QByteArray& action) const;
    QByteArray userBanKey(const QByteArray& user) const;
    QByteArray userAuditKey(const QByteArray& user) const;
    /// The user's overrides hash (override_set.lua; hit.lua's KEYS[3]).
    QByteArray overridesKey(const QByteArray& user) const;
    /// The index of users with overrides (zset, score = when their last override ends).
    QByteArray overrideIndexKey(bool cluster = false) const;
    /// `cluster`: the "{:}" layout of a Redis Cluster (KeyLayout decides; see the class comment).
    QByteArray policyKey(const QByteArray& action, bool cluster = false) const;
    /// Set of escaped action names with a policy, kept by the policy scripts (plus "*").
    QByteArray policyIndexKey(bool cluster = false) const;
    /// Stream of the revisions a save, delete or restore replaced (newest 100), kept by the policy
    /// scripts; it has no TTL, so a deleted policy can be restored.
    QByteArray policyHistoryKey(const QByteArray& action, bool cluster = false) const;
    /// Where policy changes are audited: the global stream, or "<p>:{:}:audit" on a cluster.
    QByteArray policyAuditKey(bool cluster) const;
    /// Per-action per-second outcome counters for the console (stats.lua).
    QByteArray statsKey(const QByteArray& action) const;
    QByteArray auditKey() const;
    QByteArray eventsChannel() const;
    /// The tollgated registry (service_announce.lua): instance id -> JSON payload, and
    /// instance id -> last-seen ms. Under "{:}" in both layouts, so the pair is one slot.
    QByteArray servicesKey() const;
    QByteArray servicesSeenKey() const;

    /// SCAN patterns. Escaped ids hold no glob characters, so they can be embedded as is.
    QByteArray userPattern(const QByteArray& user) const; // every key of a user
    QByteArray actionPattern(const QByteArray& user, const QByteArray& action) const;
    QByteArray allUsersPattern() const;        // <p>:{*
    QByteArray allAuditStreamsPattern() const; // <p>:{*}:audit, users' and a cluster's {:}
    QByteArray allOverridesPattern() const;    // <p>:{*}:overrides (and a cluster's index)
    QByteArray policyPattern(bool cluster = false) const;

    struct Parsed
    {
        // Audit: <p>:audit or the cluster's <p>:{:}:audit. PolicyIndex: either <p>:policies.
        enum class Kind
        {
            State,
            ActionBan,
            UserBan,
            UserAudit,
            Overrides,
            OverrideIndex,
            Policy,
            PolicyIndex,
            PolicyHistory,
            Stats,
            Audit,
            Foreign
        };
        Kind kind = Kind::Foreign;
        QByteArray user;
        QByteArray action;
        Algorithm algorithm = Algorithm::FixedWindow;
        qint64 windowMs = 0;
    };
    Parsed parse(const QByteArray& key) const;

private:
    QByteArray policyBase(bool cluster) const; // "<p>:" or "<p>:{:}:"
    /// What follows "<p>:" or "<p>:{:}:" for the keys both layouts have; false if none.
    bool parseShared(QByteArrayView rest, Parsed* parsed) const;

    QByteArray m_prefix;
};

} // namespace tollgate
