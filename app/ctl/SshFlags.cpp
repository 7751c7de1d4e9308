// The --ssh* global options: through which SSH server the Redis connection goes (core/ssh).
#include "app/ctl/Cli.h"

namespace tollgate::ctl {

SshFlag takeSshFlag(const QStringList& args, int& i, SshOptions& ssh)
{
    const QString& arg = args[i];
    if (arg == QLatin1String("--ssh-accept-new-host-key")) {
        ssh.acceptNewHostKey = true;
        return SshFlag::Taken;
    }
    for (const char* name : {"--ssh", "--ssh-config", "--ssh-identity"}) {
        const QString flag = QString::fromLatin1(name);
        QString value;
        if (arg == flag) {
            if (i + 1 >= args.size())
                return SshFlag::MissingValue;
            value = args[++i];
        } else if (arg.startsWith(flag + QLatin1Char('='))) {
            value = arg.mid(flag.size() + 1);
        } else {
            continue;
        }
        if (flag == QLatin1String("--ssh"))
            ssh.destination = value;
        else if (flag == QLatin1String("--ssh-config"))
            ssh.configFile = value;
        else
            ssh.identityFile = value;
        return SshFlag::Taken;
    }
    return SshFlag::NotSsh;
}

Status checkSshOptions(const SshOptions& ssh, const ConnectionOptions& connection)
{
    if (!ssh.enabled()) {
        if (!ssh.configFile.isEmpty() || !ssh.identityFile.isEmpty() || ssh.acceptNewHostKey)
            return Error{ErrorKind::InvalidInput,
                         QStringLiteral("--ssh-config, --ssh-identity and "
                                        "--ssh-accept-new-host-key go with --ssh")};
        return Unit{};
    }
    if (const Status valid = SshOptions::validateDestination(ssh.destination); !valid)
        return Error{ErrorKind::InvalidInput, QStringLiteral("bad --ssh: ") + valid.error().message};
    if (connection.transport == ConnectionOptions::Transport::Unix)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("--ssh goes with a redis:// or rediss:// URL (host and port "
                                    "as the SSH server sees them), not a unix socket")};
    return Unit{};
}

} // namespace tollgate::ctl
