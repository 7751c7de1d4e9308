#pragma once

#include <QString>
#include <optional>

namespace tollgate::ui {

/// Whether this process was started by ssh as its SSH_ASKPASS program for the console (the
/// tunnel sets TOLLGATE_SSH_ASKPASS in ssh's environment, core/ssh/SshSession).
bool isSshAskPass();

/// ssh's prompt (a password, a key's passphrase, or a yes/no question about a host key) in a
/// modal dialog, `sshAskPassDialog`; secrets are not echoed. The answer, or nothing when
/// cancelled.
std::optional<QString> askSshSecret(const QString& prompt);

/// The askpass program: askSshSecret(argv[1]) in a process of its own, the answer printed on
/// stdout for ssh. Exit 0 with an answer, 1 when cancelled (ssh then gives up on that method).
int runSshAskPass(int argc, char* argv[]);

} // namespace tollgate::ui
