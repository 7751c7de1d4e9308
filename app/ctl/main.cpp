// tollgatectl: the command-line face of Tollgate. Global options are read here (anywhere on the
// line), then the command's own QCommandLineParser takes the rest. See docs/CLI.md.
#include "app/ctl/Cli.h"
#include "app/ctl/Output.h"
#include "core/keys/IdText.h"
#include "tollgate/Version.h"

#include <QCoreApplication>
#include <QSysInfo>
#include <map>
#include <utility>

using namespace tollgate;
using namespace tollgate::ctl;

namespace {

const char kUsage[] =
    R"(Usage: tollgatectl [--url URL] [--prefix P] [--actor NAME] [--json] <command> [args]

Commands:
  policy list | get <action> | set <action> ... | delete <action> | reindex
  policy history <action> | diff <action> A B | rollback <action> --to N --reason R
         | restore <action> --reason R    earlier revisions, compared and put back
  hit <action> <user> [--cost N]        count a hit (exit 1 when denied)
  peek <action> <user> [--cost N]       what a hit would get, counting nothing
  refund <action> <user> [--cost N]     give back units (default the policy's cost)
  penalize <action> <user> --cost N --reason R   count N more units, past the limit too
  override set <action|*> <user> (--limit N --window D | --windows D:N,... | --unlimited)
          (--for D | --until T | --permanent) --reason R   one user's limits instead of the policy's
  override list [<user>] [--action A]   overrides in force
  override delete <action|*> <user> --reason R
  override reindex                      rebuild the index of users with overrides
  ban <user> [--action A] (--for D | --until T | --permanent) --reason R
  unban <user> [--action A] --reason R
  reset <user> [--action A] [--reason R]
  subjects [--action A] [--user-prefix P] [--max N] [--banned] [--near]
                                        users x actions with their usage and bans (streamed)
  repair [--fix]                        keys of ours without a TTL (dry run unless --fix)
  repair --pattern GLOB --ttl D [--rate N] [--dry-run | --fix --reason R]
                                        another client's keys without a TTL get one
  audit [--user U] [--count N]          newest audit entries
  scripts                               the Lua scripts, their SHA1 and whether loaded
  scripts --source hit:812              the source line of a script's line (or Redis's user_script:812)
  cluster                               standalone, or every cluster node: role, slots, INFO
  services                              the tollgated instances registered, with their health
  bench hit [--connections N] [--pipeline N] [--seconds N] [--users N] [--action A]
  simulate [--seconds N] [--users N] [--rate N]   demo traffic: example policies, abusers
  exporter [--listen HOST:PORT] [--interval D]    OpenMetrics for Prometheus (docs/metrics.md)

Global options (anywhere on the line):
  --url URL       redis://[user:pass@]host:port/db, rediss://..., unix:///path,
                  redis+sentinel://[user:pass@]host:port[,host:port...]/master[/db]
                  (default: $TOLLGATE_URL, else redis://127.0.0.1:6379)
  --prefix P      key prefix (default tg)
  --actor NAME    who is acting, for the audit trail (default $USER@host)
  --json          machine-readable output: one compact JSON value
  --askpass       read the password from the terminal (no echo) instead of the URL
  --no-auth-warning  no warning about a password in --url
                  (the password may also come from $TOLLGATE_PASSWORD or $REDISCLI_AUTH)
  --ssh [USER@]HOST[:PORT]  reach Redis through this SSH server (or ~/.ssh/config alias);
                  the URL's host and port are then as that server sees them
  --ssh-config FILE  ssh config to use instead of ~/.ssh/config
  --ssh-identity FILE  private key to offer (besides the agent and IdentityFile)
  --ssh-accept-new-host-key  trust and record an SSH host key not in known_hosts yet
  <command> --help  the command's own options
  --version       the version of this build and the script contract it follows

Exit codes: 0 success/allowed, 1 denied, 2 usage or invalid input, 3 connection or server error.
)";

QString defaultActor()
{
    const QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        return QStringLiteral("cli");
    const QString host = QSysInfo::machineHostName();
    return host.isEmpty() ? user : user + QLatin1Char('@') + host;
}

} // namespace

Result<ConnectionOptions> Cli::connectionOptions()
{
    auto options = ConnectionOptions::fromUrl(url);
    if (!options)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("bad --url: ") + options.error().message};
    if (const Status sshValid = checkSshOptions(ssh, *options); !sshValid)
        return sshValid.error();
    options->ssh = ssh;
    if (askPass) {
        bool ok = false;
        options->password = readPassword(QStringLiteral("Password: "), &ok);
        if (!ok)
            return Error{ErrorKind::InvalidInput, QStringLiteral("--askpass: no password given")};
    } else if (!options->password.isEmpty()) {
        if (urlOnCommandLine && !noAuthWarning && !std::exchange(m_warnedAboutPassword, true))
            warn(QStringLiteral("a password in --url on the command line may be seen by other "
                                "users (ps); use TOLLGATE_PASSWORD, REDISCLI_AUTH or --askpass"));
    } else {
        options->password = ConnectionOptions::passwordFromEnvironment();
    }
    if (!options->sentinel.password.isEmpty() && urlOnCommandLine && !noAuthWarning &&
        !std::exchange(m_warnedAboutPassword, true))
        warn(QStringLiteral("a sentinel_password in --url on the command line may be seen by "
                            "other users (ps); give the URL in TOLLGATE_URL instead"));
    return options;
}

Client* Cli::client()
{
    if (m_client)
        return m_client.get();
    auto options = connectionOptions();
    if (!options) {
        fail(options.error());
        return nullptr;
    }
    options->clientName = QStringLiteral("tollgatectl");
    // A CLI reports a dead server instead of waiting for it to come back.
    options->autoReconnect = false;
    m_client = std::make_unique<Client>(*options);
    m_client->open();
    return m_client.get();
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("tollgatectl"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(kVersion));

    Cli cli;
    cli.url = qEnvironmentVariable("TOLLGATE_URL", QStringLiteral("redis://127.0.0.1:6379"));
    cli.actor = defaultActor();

    // Pull the global options out wherever they are; "--" ends option parsing. argv is decoded
    // by idToText(), not by Qt: ids may be any bytes, and Qt would turn each byte that is not
    // UTF-8 into U+FFFD, so that 128 different ids would all address one key.
    QStringList all;
    for (int i = 0; i < argc; ++i)
        all << idToText(QByteArray(argv[i]));
    QStringList rest;
    for (int i = 1; i < all.size(); ++i) {
        const QString& arg = all[i];
        if (arg == QLatin1String("--")) {
            rest << all.mid(i);
            break;
        }
        if (arg == QLatin1String("--json")) {
            cli.json = true;
            continue;
        }
        if (arg == QLatin1String("--askpass")) {
            cli.askPass = true;
            continue;
        }
        if (arg == QLatin1String("--no-auth-warning")) {
            cli.noAuthWarning = true;
            continue;
        }
        if (const SshFlag ssh = takeSshFlag(all, i, cli.ssh); ssh != SshFlag::NotSsh) {
            if (ssh == SshFlag::MissingValue)
                return usage(arg + QStringLiteral(" needs a value"));
            continue;
        }
        bool matched = false;
        for (const QString& name : {QStringLiteral("url"), QStringLiteral("prefix"), QStringLiteral("actor")}) {
            const QString flag = QStringLiteral("--") + name;
            QString value;
            if (arg == flag) {
                if (i + 1 >= all.size())
                    return usage(flag + QStringLiteral(" needs a value"));
                value = all[++i];
            } else if (arg.startsWith(flag + QLatin1Char('='))) {
                value = arg.mid(flag.size() + 1);
            } else {
                continue;
            }
            matched = true;
            if (name == QLatin1String("url")) {
                cli.url = value;
                cli.urlOnCommandLine = true;
            } else if (name == QLatin1String("prefix"))
                cli.prefix = value.toUtf8();
            else
                cli.actor = value;
        }
        if (!matched)
            rest << arg;
    }
    if (const Status prefix = KeySchema::validatePrefix(cli.prefix); !prefix)
        return usage(QStringLiteral("--prefix: ") + prefix.error().message);
    if (cli.actor.trimmed().isEmpty())
        return usage(QStringLiteral("--actor must not be empty"));

    if (rest.isEmpty()) {
        std::fputs(kUsage, stderr);
        return ExitUsage;
    }
    const QString command = rest.takeFirst();
    if (command == QLatin1String("help") || command == QLatin1String("--help") ||
        command == QLatin1String("-h")) {
        std::fputs(kUsage, stdout);
        return ExitOk;
    }
    if (command == QLatin1String("--version") || command == QLatin1String("version")) {
        std::printf("tollgatectl %s (script contract %d)\n", kVersion, kScriptContract);
        return ExitOk;
    }

    const std::map<QString, int (*)(Cli&, const QStringList&)> commands{
        {QStringLiteral("policy"), policyCommand},   {QStringLiteral("hit"), hitCommand},
        {QStringLiteral("peek"), peekCommand},       {QStringLiteral("ban"), banCommand},
        {QStringLiteral("refund"), refundCommand},   {QStringLiteral("penalize"), penalizeCommand},
        {QStringLiteral("unban"), unbanCommand},     {QStringLiteral("reset"), resetCommand},
        {QStringLiteral("subjects"), subjectsCommand}, {QStringLiteral("repair"), repairCommand},
        {QStringLiteral("audit"), auditCommand},     {QStringLiteral("scripts"), scriptsCommand},
        {QStringLiteral("bench"), benchCommand},     {QStringLiteral("simulate"), simulateCommand},
        {QStringLiteral("cluster"), clusterCommand}, {QStringLiteral("exporter"), exporterCommand},
        {QStringLiteral("override"), overrideCommand},
        {QStringLiteral("services"), servicesCommand},
    };
    const auto found = commands.find(command);
    if (found == commands.end())
        return usage(QStringLiteral("unknown command '%1' (see 'tollgatectl --help')").arg(command));
    return found->second(cli, QStringList{QStringLiteral("tollgatectl ") + command} + rest);
}
