#pragma once

// tests/reference/differential.lua loaded with its bodies: the frozen reference hit.lua, the
// candidate (the assembled hit.lua or TOLLGATE_DIFF_CANDIDATE), the assembled ban.lua and
// unban.lua in ONE script, so one call runs an operation on both prefixes under one frozen clock
// and compares replies and states.
// Each hit.lua is loaded alone too. Used by tst_HitDifferential and tst_HitShortForm.

#include "tests/support/RedisServer.h"

#include <QByteArray>
#include <QList>

namespace tollgate::test {

// hit.lua's algorithms and the codes their state keys carry, in the same order.
inline const QList<QByteArray> kHitAlgorithms{"fixed_window", "sliding_log", "sliding_window",
                                               "token_bucket"};
inline const QList<QByteArray> kHitCodes{"fw", "sl", "sw", "tb"};

// ACL users that may run every command on every key but one kind of write, each refused the
// way TG_NOPERM must name it, all with this password: noset, noxadd, nopexpire (PEXPIRE and
// PEXPIREAT), nohset, nozadd, nozrem (ZREMRANGEBYSCORE). An error message, or empty.
inline const QByteArray kRefusingPassword = "pw";
QByteArray addRefusingUsers(RedisServer& redis);

// One wrapper call: the operation's keys (as "tgR:" keys), what it is, its arguments.
struct DifferentialStep
{
    QList<QByteArray> keys;
    QByteArray operation; // hit | hit_short | ban | unban | raw
    QList<QByteArray> args;
    QByteArray description() const;
};

// What one wrapper call came to: agreement (difference empty), and then the way the
// candidate's hit went and the start of the reply.
struct DifferentialOutcome
{
    QByteArray difference; // empty when both agreed
    QByteArray path;       // "fast", "slow", "slow:undo", ... (differential.lua)
    QByteArray reply;
};

class HitDifferential
{
public:
    /// Loads the scripts into `redis`; an error message, or empty.
    QByteArray load(RedisServer& redis);
    /// Runs `step` on both prefixes and compares the `compared` keys afterwards.
    DifferentialOutcome run(RedisServer& redis, const DifferentialStep& step,
                            const QList<QByteArray>& compared) const;

    const QByteArray& candidate() const { return m_candidate; }       // its source
    const QByteArray& candidateSha() const { return m_candidateSha; } // loaded alone
    const QByteArray& referenceSha() const { return m_referenceSha; }

private:
    QByteArray m_sha; // the wrapper with the bodies
    QByteArray m_candidate;
    QByteArray m_candidateSha;
    QByteArray m_referenceSha;
};

} // namespace tollgate::test
