#pragma once

#include "tollgate/Blocking.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QStringList>
#include <memory>

namespace tollgate::ctl {

/// Exit codes, documented in docs/CLI.md.
enum ExitCode : int {
    ExitOk = 0,      // success, or the hit/peek is allowed
    ExitDenied = 1,  // hit/peek not allowed (deny or banned)
    ExitUsage = 2,   // bad flags, unknown command, invalid input (nothing was written)
    ExitFailure = 3, // connection or server error, conflict, not found
};

/// What every command gets: the global options and a lazily opened connection.
struct Cli
{
    QString url;
    QByteArray prefix = QByteArrayLiteral("tg");
    QString actor;
    bool json = false;
    bool urlOnCommandLine = false; // --url given: a password in it is visible in `ps`
    bool askPass = false;          // --askpass: read the password from the terminal
    bool noAuthWarning = false;    // --no-auth-warning
    SshOptions ssh;                // --ssh, --ssh-config, --ssh-identity, ...

    KeySchema schema() const { return KeySchema(prefix); }
    /// The URL parsed, with the password taken from (in order) --askpass, the URL,
    /// $TOLLGATE_PASSWORD, $REDISCLI_AUTH; warns (once, on stderr) about a password in --url.
    Result<ConnectionOptions> connectionOptions();
    /// The connection, opened on first use; nullptr (after printing the error) on a bad URL.
    Client* client();

private:
    std::unique_ptr<Client> m_client;
    bool m_warnedAboutPassword = false;
};

/// One of the --ssh* global options at args[i] (its value too, moving i past it).
enum class SshFlag { NotSsh, Taken, MissingValue };
SshFlag takeSshFlag(const QStringList& args, int& i, SshOptions& ssh);
/// The --ssh* options make sense together and with the URL (InvalidInput, exit 2, if not).
Status checkSshOptions(const SshOptions& ssh, const ConnectionOptions& connection);

/// Reads a password from the terminal without echoing it (a line from stdin when stdin is
/// not a terminal, as redis-cli's --askpass does). `ok` false on end of input.
QString readPassword(const QString& prompt, bool* ok);

// One function per command; `args` holds "tollgatectl <command>" then the command's arguments.
int policyCommand(Cli& cli, const QStringList& args);
/// `policy export` and `policy apply` (PolicyFileCommands.cpp), reached through policyCommand.
int policyExportCommand(Cli& cli, const QStringList& args);
int policyApplyCommand(Cli& cli, const QStringList& args);
/// `policy history`, `diff`, `rollback` and `restore` (PolicyHistoryCommands.cpp); `sub` names it.
int policyHistoryCommand(Cli& cli, const QString& sub, const QStringList& args);
int hitCommand(Cli& cli, const QStringList& args);
int peekCommand(Cli& cli, const QStringList& args);
int banCommand(Cli& cli, const QStringList& args);
int unbanCommand(Cli& cli, const QStringList& args);
int resetCommand(Cli& cli, const QStringList& args);
int refundCommand(Cli& cli, const QStringList& args);
int penalizeCommand(Cli& cli, const QStringList& args);
int overrideCommand(Cli& cli, const QStringList& args);
int subjectsCommand(Cli& cli, const QStringList& args);
int repairCommand(Cli& cli, const QStringList& args);
int auditCommand(Cli& cli, const QStringList& args);
int scriptsCommand(Cli& cli, const QStringList& args);
int benchCommand(Cli& cli, const QStringList& args);
int simulateCommand(Cli& cli, const QStringList& args);
int clusterCommand(Cli& cli, const QStringList& args);
int exporterCommand(Cli& cli, const QStringList& args);
int servicesCommand(Cli& cli, const QStringList& args);

} // namespace tollgate::ctl
