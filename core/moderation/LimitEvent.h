#pragma once

#include <QByteArray>
#include <optional>

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

} // namespace tollgate
