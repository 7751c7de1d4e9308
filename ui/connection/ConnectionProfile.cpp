#include "ui/connection/ConnectionProfile.h"

#include "tollgate/KeySchema.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ConnectionProfile", text);
}

Status checkFile(const QString& path, const QString& what)
{
    if (!path.isEmpty() && !QFileInfo(path).isReadable())
        return Error{ErrorKind::InvalidInput, tr("%1: cannot read \"%2\"").arg(what, path)};
    return Unit{};
}

} // namespace

Status ConnectionProfile::validate() const
{
    if (name.trimmed().isEmpty())
        return Error{ErrorKind::InvalidInput, tr("Profile name: required")};
    const ConnectionOptions& c = connection;
    if (c.sentinel.enabled()) {
        if (c.transport != ConnectionOptions::Transport::Tcp)
            return Error{ErrorKind::InvalidInput,
                         tr("Sentinel: the sentinels are reached over TCP")};
        if (c.sentinel.replica && !readOnly)
            return Error{ErrorKind::InvalidInput,
                         tr("Sentinel: a replica takes no writes; make the profile read-only")};
    } else if (c.transport == ConnectionOptions::Transport::Tcp) {
        if (c.host.trimmed().isEmpty())
            return Error{ErrorKind::InvalidInput, tr("Host: required")};
        if (c.host.contains(QLatin1Char(' ')) || c.host.contains(QLatin1Char('/')))
            return Error{ErrorKind::InvalidInput, tr("Host: not a host name or address")};
        if (c.port == 0)
            return Error{ErrorKind::InvalidInput, tr("Port: must be between 1 and 65535")};
    } else if (c.socketPath.trimmed().isEmpty()) {
        return Error{ErrorKind::InvalidInput, tr("Socket: the path of the unix socket is required")};
    }
    if (c.ssh.enabled()) {
        if (c.transport == ConnectionOptions::Transport::Unix)
            return Error{ErrorKind::InvalidInput,
                         tr("SSH tunnel: goes with TCP (host and port as the SSH server sees "
                            "them), not a unix socket")};
        if (const Status valid = SshOptions::validateDestination(c.ssh.destination); !valid)
            return Error{ErrorKind::InvalidInput, tr("SSH server: ") + valid.error().message};
        for (const auto& [path, what] : {std::pair{c.ssh.identityFile, tr("SSH key file")},
                                         std::pair{c.ssh.configFile, tr("SSH config")}})
            if (const Status status = checkFile(path, what); !status)
                return status;
    }
    if (c.database < 0 || c.database > 15999)
        return Error{ErrorKind::InvalidInput, tr("Database: must be a number from 0")};
    if (c.tls.enabled) {
        for (const auto& [path, what] :
             {std::pair{c.tls.caFile, tr("CA file")}, std::pair{c.tls.certFile, tr("Certificate")},
              std::pair{c.tls.keyFile, tr("Private key")}}) {
            const Status status = checkFile(path, what);
            if (!status)
                return status;
        }
        if (c.tls.certFile.isEmpty() != c.tls.keyFile.isEmpty())
            return Error{ErrorKind::InvalidInput,
                         tr("Certificate and private key: give both or neither")};
    }
    if (const Status valid = KeySchema::validatePrefix(prefix); !valid)
        return Error{ErrorKind::InvalidInput, tr("Key prefix: ") + valid.error().message};
    return Unit{};
}

Session::Settings ConnectionProfile::toSessionSettings(const QString& password) const
{
    Session::Settings settings;
    settings.connection = connection;
    settings.connection.password = password;
    // ssh asks for SSH passwords and passphrases through the console itself (SshAskPass).
    if (settings.connection.ssh.enabled())
        settings.connection.ssh.askPassProgram = QCoreApplication::applicationFilePath();
    settings.prefix = prefix;
    settings.actor = actor;
    settings.readOnly = readOnly;
    settings.profileName = name;
    return settings;
}

QString ConnectionProfile::summary() const
{
    return name + QStringLiteral(" \u2014 ") + connection.toUrl(false);
}

} // namespace tollgate::ui
