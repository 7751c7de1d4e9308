#include "app/ctl/Command.h"

#include "app/ctl/Output.h"
#include "core/limits/IdText.h"

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

Result<CostedArguments> costedArguments(const QCommandLineParser& parser)
{
    auto cost = integerOption(parser, QStringLiteral("cost"), 0);
    if (cost && parser.isSet(QStringLiteral("cost")) && *cost < 1)
        return invalidInput(QStringLiteral("--cost must be 1 or more"));
    if (!cost)
        return cost.error();
    CostedArguments arguments{idFromText(parser.positionalArguments().value(0)),
                              idFromText(parser.positionalArguments().value(1)), *cost};
    if (const Status valid = KeySchema::validateId(arguments.user, QStringLiteral("user id"));
        !valid)
        return valid.error();
    return arguments;
}

Error invalidInput(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

} // namespace tollgate::ctl
