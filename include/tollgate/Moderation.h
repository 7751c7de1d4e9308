#pragma once

// Moderation: ban, unban and reset, each with an actor, a reason and an audit entry;
// LimitEvent: what the events channel says about them.

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QByteArray>
#include <optional>
#include <vector>

namespace tollgate {

/// One message of the events channel <p>:events (lua/README.md, "Events"): what a write script
/// changed. `action` is empty for a user-wide operation and `*` for an override of every action;
/// for `policy` the user is empty and the action is the escaped one of the policy's key.
struct LimitEvent
{
    QByteArray event; // ban, unban, reset, override, policy, ...
    QByteArray user;
    QByteArray action;

    /// "<event>\n<byte length of user>\n<user><action>"; nullopt for anything else.
    static std::optional<LimitEvent> parse(const QByteArray& payload);
};

struct BanRequest
{
    QByteArray user;
    QByteArray action; // empty = every action of the user
    QString actor;     // who: required
    QString reason;    // why: required
    qint64 durationMs = 0;
    qint64 untilMs = 0; // absolute epoch ms; both 0 = permanent
};

struct BanInfo
{
    QByteArray user;
    QByteArray action; // empty = every action
    QString reason;
    QString actor;
    QString source; // manual | auto
    qint64 createdMs = 0;
    qint64 untilMs = 0; // 0 = permanent
    qint64 ttlMs = -1;  // PTTL when read; -1 = none
};

/// Ban, unban and reset, each one script that also appends to the user's audit stream;
/// each also lands in the global audit stream with the actor.
class Moderation
{
public:
    Moderation(Client* client, KeySchema schema);

    void ban(const BanRequest& request, Context context, Callback<BanInfo> done) const;
    /// Removes the action's ban, or with an empty action every ban of the user.
    /// Delivers how many bans were removed.
    void unban(const QByteArray& user, const QByteArray& action, const QString& actor,
               const QString& reason, Context context, Callback<qint64> done) const;
    /// Deletes the counters of one action (or of every action). Delivers the number deleted.
    void reset(const QByteArray& user, const QByteArray& action, const QString& actor,
               const QString& reason, Context context, Callback<qint64> done) const;
    /// unban() and reset() for keys the caller already found (the key inspector's
    /// selection): the same scripts, audit entries and events, for exactly these keys.
    void unbanKeys(const QByteArray& user, const QByteArray& action, const QList<QByteArray>& keys,
                   const QString& actor, const QString& reason, Context context,
                   Callback<qint64> done) const;
    void resetKeys(const QByteArray& user, const QByteArray& action, const QList<QByteArray>& keys,
                   const QString& actor, const QString& reason, Context context,
                   Callback<qint64> done) const;
    /// Every ban of a user: SCAN MATCH of the user's own prefix, then HGETALL + PTTL of each.
    void bans(const QByteArray& user, Context context, Callback<std::vector<BanInfo>> done) const;
    /// The user-wide ban and the bans of these actions, addressed through the key schema (no
    /// SCAN): HGETALL + PTTL of each ban key; missing ones are left out.
    void bansOf(const QByteArray& user, const QList<QByteArray>& actions, Context context,
                Callback<std::vector<BanInfo>> done) const;

    /// Parses a ban hash (HGETALL pairs).
    static BanInfo banFromFields(const QByteArray& user,
                                 const QList<QPair<QByteArray, QByteArray>>& fields);

private:
    /// Keys of one user (SCAN with the user's pattern), parsed, filtered by `accept`.
    void userKeys(const QByteArray& user, std::function<bool(const KeySchema::Parsed&)> accept,
                  Callback<QList<QByteArray>> done) const;

    /// HGETALL + PTTL of each of the user's ban keys, pipelined.
    void readBans(const QByteArray& user, const QList<QByteArray>& keys, Context context,
                  Callback<std::vector<BanInfo>> done) const;

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
