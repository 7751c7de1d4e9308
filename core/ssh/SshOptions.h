#pragma once

#include "core/redis/Result.h"

#include <QString>
#include <QStringList>

namespace tollgate {

/// How to reach Redis through an SSH server (docs/architecture.md, "SSH tunnels"). Empty
/// destination: directly. The system's OpenSSH client does the SSH part, so ~/.ssh/config
/// (host aliases, User, Port, IdentityFile, ProxyJump), the agent and known_hosts apply as
/// they do for `ssh` itself.
struct SshOptions
{
    /// "[user@]host[:port]", "[user@][v6 address]:port", or a Host alias of the ssh config.
    QString destination;
    QString configFile;    // ssh -F: instead of ~/.ssh/config
    QString identityFile;  // ssh -i: a key to try first (the config's IdentityFile too)
    /// A host key not in known_hosts is added (StrictHostKeyChecking=accept-new) instead of
    /// refused. A changed host key is refused either way.
    bool acceptNewHostKey = false;
    /// The program ssh runs for passwords and passphrases (SSH_ASKPASS, always used); empty:
    /// ssh asks on the terminal itself.
    QString askPassProgram;

    bool enabled() const { return !destination.isEmpty(); }
    bool operator==(const SshOptions& other) const;
    bool operator!=(const SshOptions& other) const { return !(*this == other); }

    /// The destination checked: a clear message for "user@", "host:99999", spaces, a leading '-'.
    static Status validateDestination(const QString& destination);
    /// ssh's arguments naming the server and how to trust it, ending with the host:
    /// [-F config] [-i key] [-l user] [-p port] -o StrictHostKeyChecking=... -- host
    QStringList serverArguments() const;
};

} // namespace tollgate
