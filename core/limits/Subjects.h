#pragma once

#include "core/limits/HitResult.h"
#include "core/limits/KeySchema.h"
#include "core/limits/Moderation.h"
#include "core/redis/Client.h"

#include <optional>
#include <vector>

namespace tollgate {

/// One user x action pair that has state or a ban in Redis.
struct Subject
{
    QByteArray user;
    QByteArray action;            // empty: a row for a user-wide ban only
    bool hasPolicy = false;       // false: keys exist but the action has no policy (any more)
    /// From hit.lua peek: count and remaining as they are now; allowed, tier, reset and
    /// retry_after as the next hit (of the policy's cost) would get them.
    HitResult state;
    std::optional<BanInfo> ban;     // ban of this action
    std::optional<BanInfo> userBan; // ban of every action of the user
    QString error;                // peek failed for this subject (e.g. a corrupt key)

    bool banned() const { return ban.has_value() || userBan.has_value(); }
};

struct SubjectsOptions
{
    QByteArray action;          // empty = every action
    qint64 maxSubjects = 10'000;
    int scanCount = 1000;       // SCAN COUNT hint
};

struct SubjectList
{
    std::vector<Subject> subjects; // sorted by user, then action
    qint64 scanned = 0;            // keys seen by SCAN
    bool truncated = false;        // stopped at maxSubjects
};

/// Lists who is doing what: client-side SCAN over <p>:{* (or one action), then one pipelined
/// hit.lua peek per subject and HGETALL of the ban hashes. Read-only.
class Subjects
{
public:
    Subjects(Client* client, KeySchema schema);

    void list(const SubjectsOptions& options, Context context, Callback<SubjectList> done) const;

    /// The SCAN pattern: <p>:{* or <p>:{*}:<escaped action>:*
    QByteArray pattern(const QByteArray& action) const;

private:
    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
