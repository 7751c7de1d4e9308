#pragma once

namespace tollgate::ui {

/// Whether this process was started by ssh as its SSH_ASKPASS program for the console (the
/// tunnel sets TOLLGATE_SSH_ASKPASS in ssh's environment, core/ssh/SshSession).
bool isSshAskPass();

/// The askpass program: shows ssh's prompt (argv[1]: a password, a key's passphrase, or a
/// yes/no question) in a dialog and prints the answer on stdout for ssh. Exit 0 with an
/// answer, 1 when cancelled (ssh then gives up on that method).
int runSshAskPass(int argc, char* argv[]);

} // namespace tollgate::ui
