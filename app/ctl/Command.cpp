#include "app/ctl/Command.h"

#include "app/ctl/Output.h"
#include "core/keys/IdText.h"

namespace tollgate::ctl {

int Command::run(Cli& cli, const QStringList& args)
{
    m_cli = &cli;
    if (auto exit = parseArguments(parser, args, m_minPositional, m_maxPositional))
        return *exit;
    if (const Status valid = check(); !valid)
        return fail(valid.error());
    m_client = cli.client();
    if (!m_client)
        return ExitUsage; // a bad URL: cli.client() said why
    const Result<int> exit = execute();
    return exit ? *exit : fail(exit.error());
}

QByteArray Command::idArgument(int i) const
{
    return idFromText(argument(i));
}

CostedCommand::CostedCommand(const QString& costHelp) : Command(2, 2)
{
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("The action."));
    parser.addPositionalArgument(QStringLiteral("user"), QStringLiteral("The user id."));
    parser.addOption(QCommandLineOption(QStringLiteral("cost"), costHelp, QStringLiteral("n")));
}

Status CostedCommand::readCosted()
{
    auto cost = integerOption(parser, QStringLiteral("cost"), 0);
    if (cost && isSet("cost") && *cost < 1)
        return invalidInput(QStringLiteral("--cost must be 1 or more"));
    if (!cost)
        return cost.error();
    m_cost = *cost;
    m_action = idArgument(0);
    m_user = idArgument(1);
    return KeySchema::validateId(m_user, QStringLiteral("user id"));
}

Error invalidInput(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

} // namespace tollgate::ctl
