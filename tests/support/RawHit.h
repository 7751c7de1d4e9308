#pragma once

// hit.lua called raw, in the full form, as a client in another language calls it (lua/README.md):
// every argument the C++ Policy may not express, sent with EVALSHA by any client, so a test can
// run it as another ACL user. And such a user: one whose
// ACL check of a key is slow enough that the server's clock ticks between two commands of one
// script, the state that exposes a TTL computed from the script's clock instead of set absolute.

#include "core/keys/KeyLayout.h"
#include "tollgate/Client.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <memory>

namespace tollgate::test {

class CoreFixture;

struct RawHit
{
    QByteArray mode = "hit";
    QByteArray algorithm = "fixed_window";
    QByteArray cost = "1";
    QByteArray countDenied = "0";
    QByteArray banMs = "0";
    QByteArray offsets = "0";
    QByteArray align = "first_hit";
    QByteArray user = "u";
    QByteArray action = "up";
    QList<QPair<qint64, qint64>> windows{{1, 1000}}; // limit, window_ms

    QByteArray stateKey(const KeySchema& schema, int window = 0) const;
};

// hit.lua's reply, field by field.
struct RawHitReply
{
    bool allowed = false;
    QByteArray tier;
    qint64 count = 0;
    qint64 limit = 0;
    qint64 remaining = 0;
    qint64 resetMs = 0;
    qint64 retryAfterMs = 0;
    qint64 countNow = -1;   // a peek's [10], [11]: the window before the hit
    qint64 resetNowMs = -1;
};

/// SCRIPT LOAD of hit.lua and ban.lua (as embedded in core) on every primary.
bool loadRawScripts(CoreFixture& core);

/// EVALSHA of hit.lua with `hit`'s keys and arguments, on `client`.
Result<RawHitReply> runRawHit(Client& client, const KeyLayout& layout, const RawHit& hit);

/// EVALSHA of ban.lua: a manual ban of `user` on `action` for `durationMs` (0 = permanent).
Result<Reply> runRawBan(Client& client, const KeyLayout& layout, const QByteArray& user,
                        const QByteArray& action, qint64 durationMs);

/// A client of a user allowed everything on the "tg:" keys, but only after `patterns` key
/// patterns that match none of them (ACL SETUSER on every primary): each key a command names costs
/// the server ~0.25 µs per pattern to check. nullptr on failure.
std::unique_ptr<Client> connectSlowAclUser(CoreFixture& core, int patterns);

} // namespace tollgate::test
