#pragma once

// OverrideStore: other limits, or none, for one user, with an end, an actor and a reason.

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <vector>

namespace tollgate {

/// What an override does to one user's hits (lua/README.md, "Overrides").
enum class OverrideKind
{
    Limit,    // the override's windows replace the policy's (same algorithm, rest of the policy)
    Unlimited // exempt: counted in the policy's windows, never denied, never banned automatically
};

/// "limit", "unlimited".
QString overrideKindName(OverrideKind kind);

/// One stored override: a field of the user's hash <p>:{<user>}:overrides.
struct Override
{
    /// The action that stands for every action of the user ("*"; an escaped id is never "*").
    static constexpr char kEveryAction[] = "*";

    QByteArray user;   // raw id
    QByteArray action; // raw id, or "*" for every action of the user
    OverrideKind kind = OverrideKind::Limit;
    std::vector<WindowLimit> windows; // Limit: 1..8, as a policy's; Unlimited: empty
    qint64 untilMs = 0;               // epoch ms when it ends; 0 = permanent
    QString actor;                    // who set it
    QString reason;                   // why
    qint64 setMs = 0;                 // server ms it was set

    bool isPermanent() const { return untilMs == 0; }
    bool everyAction() const { return action == kEveryAction; }
    /// Whether it still applies at server time `nowMs` (a field past its end is ignored by
    /// hit.lua).
    bool activeAt(qint64 nowMs) const { return untilMs == 0 || nowMs < untilMs; }
    /// "100 per 1m, 1000 per 1h" or "unlimited".
    QString describe() const;
};

/// What to set. Exactly one end: durationMs > 0, untilMs in the future, or permanent.
struct OverrideRequest
{
    QByteArray user;
    QByteArray action; // raw id or "*"
    OverrideKind kind = OverrideKind::Limit;
    std::vector<WindowLimit> windows; // Limit: 1..8; Unlimited: must be empty
    qint64 durationMs = 0;            // from the server's now
    qint64 untilMs = 0;               // absolute epoch ms
    bool permanent = false;           // neither durationMs nor untilMs
    QString actor;                    // required
    QString reason;                   // required

    /// Every rule with a message naming the field (ids, windows, one end, actor, reason).
    Status validate() const;
};

/// An override's windows as stored and as hit.lua's TG_OVERRIDE names them:
/// "<window_ms>:<limit>,..." (1..8 pairs, ascending as given).
QByteArray overrideWindowsText(const std::vector<WindowLimit>& windows);
/// The inverse; Protocol naming the text when it is not that (it comes from the server).
Result<std::vector<WindowLimit>> overrideWindowsFromText(QByteArrayView text);

/// `policy` with a limit override's windows in place of its own (the rest of the policy stays);
/// a limit past what the algorithm holds is that maximum (as hit.lua reads it); calendar
/// alignment only when they are calendar windows, else they start at the first hit.
Policy withOverrideWindows(const Policy& policy, const std::vector<WindowLimit>& windows);

/// Overrides in Redis: override_set.lua / override_delete.lua write the user's hash, its TTL,
/// both audit streams (like a ban: actor and reason, ACL-checked first, all or nothing) and the
/// index <p>:overrides (one member per user, scored by when the user's last override ends; on
/// a Redis Cluster <p>:{:}:overrides, kept by a second step after the write, repaired by
/// reindex()).
class OverrideStore
{
public:
    OverrideStore(Client* client, KeySchema schema);

    /// Validates, then sets (or replaces) the override of request.action. Delivers it as stored
    /// (setMs and untilMs from the server's clock). InvalidInput, NoPerm (TG_NOPERM: nothing
    /// written).
    void set(const OverrideRequest& request, Context context, Callback<Override> done) const;
    /// Deletes the override of `action` ("*" = the every-action one, not all of them). Delivers
    /// whether there was one (and an audit entry is written either way).
    void remove(const QByteArray& user, const QByteArray& action, const QString& actor,
                const QString& reason, Context context, Callback<bool> done) const;
    /// The user's overrides still in force (HGETALL of one key; no SCAN), sorted by action.
    void ofUser(const QByteArray& user, Context context,
                Callback<std::vector<Override>> done) const;
    /// Every override in force: the index (ZRANGE WITHSCORES with TIME; members whose end has
    /// passed are skipped), then each user's hash (HGETALL) in one pipeline. An empty `action`
    /// = every action; otherwise that action's and the "*" ones.
    void list(const QByteArray& action, Context context,
              Callback<std::vector<Override>> done) const;
    /// Rebuilds the index from the users' hashes (SCAN MATCH <p>:{*}:overrides, on every
    /// primary of a cluster). Delivers the number of users indexed.
    void reindex(Context context, Callback<qint64> done) const;

    /// Parses one hash field (action, escaped as in keys, or "*") and its value.
    static Result<Override> fromField(const QByteArray& user, const QByteArray& field,
                                      const QByteArray& value);

private:
    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
