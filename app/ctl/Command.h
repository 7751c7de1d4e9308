#pragma once

#include "app/ctl/Cli.h"

#include <QCommandLineParser>

namespace tollgate::ctl {

/// A tollgatectl command that talks to Redis. The preamble every such command shares is here:
/// its arguments parsed, its input checked before anything is sent, the client opened, and
/// every error printed on one stderr line and mapped to its exit code (docs/CLI.md). A command
/// declares its positional arguments and options on `parser` in its constructor and holds only
/// what it does:
///
///     class ResetCommand final : public Command {
///     public:
///         ResetCommand() : Command(1, 1) { parser.addPositionalArgument(...); }
///     private:
///         Status check() override;          // the input alone: a usage error exits 2
///         Result<int> execute() override;   // with client() open: an exit code, or an error
///     };
///     int resetCommand(Cli& cli, const QStringList& args) { return ResetCommand().run(cli, args);
///     }
class Command
{
public:
    virtual ~Command() = default;
    Command(const Command&) = delete;
    Command& operator=(const Command&) = delete;

    /// `args` holds "tollgatectl <command>" (or "<command> <sub-command>") then the arguments.
    /// --help, bad flags and a wrong number of positional arguments end here with their exit
    /// code, as does an error from check(); nothing is sent to Redis before execute().
    int run(Cli& cli, const QStringList& args);

protected:
    /// How many positional arguments the command takes.
    Command(int minPositional, int maxPositional)
        : m_minPositional(minPositional), m_maxPositional(maxPositional)
    {
    }

    /// Checks the parsed input before connecting; an InvalidInput error exits with 2.
    virtual Status check() { return Unit{}; }
    /// Does the work with the client open: the exit code, or an error to report.
    virtual Result<int> execute() = 0;

    Cli& cli() const { return *m_cli; }
    Client* client() const { return m_client; }
    KeySchema schema() const { return m_cli->schema(); }
    bool json() const { return m_cli->json; }

    /// The i-th positional argument, as typed; as an id (any bytes, see core/keys/IdText.h).
    QString argument(int i) const { return parser.positionalArguments().value(i); }
    QByteArray idArgument(int i) const;
    bool isSet(const char* option) const { return parser.isSet(QString::fromLatin1(option)); }
    QString value(const char* option) const { return parser.value(QString::fromLatin1(option)); }

    QCommandLineParser parser;

private:
    int m_minPositional;
    int m_maxPositional;
    Cli* m_cli = nullptr;
    Client* m_client = nullptr;
};

/// hit, peek, refund and penalize: "<action> <user> [--cost N]", read before connecting.
class CostedCommand : public Command
{
protected:
    explicit CostedCommand(const QString& costHelp);

    /// Reads the action, the user (its id checked) and the cost (0 when not given: the
    /// policy's); call it from check().
    Status readCosted();

    QByteArray m_action;
    QByteArray m_user;
    qint64 m_cost = 0;
};

/// The entry point of a command whose constructor takes nothing: `{"set", runCommand<SetCommand>}`.
template <typename T> int runCommand(Cli& cli, const QStringList& args)
{
    return T().run(cli, args);
}

/// An InvalidInput error with this message: what check() returns for a usage error (one stderr
/// line, exit code 2, exactly as usage() prints it).
Error invalidInput(const QString& message);

} // namespace tollgate::ctl
