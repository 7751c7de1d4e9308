#pragma once

#include "tollgate/ConnectionOptions.h"
#include "ui/common/Session.h"

#include <QString>

namespace tollgate::ui {

/// A saved way to connect. `connection.password` is never stored with the profile: the
/// ProfileStore keeps it in the OS keychain (or nowhere).
struct ConnectionProfile
{
    QString name;
    ConnectionOptions connection;
    QByteArray prefix = QByteArrayLiteral("tg");
    bool readOnly = false;
    QString actor; // empty = the OS user

    /// Every field checked, the message naming the field ("Port must be 1..65535").
    Status validate() const;
    /// What Session needs, with the password filled in.
    Session::Settings toSessionSettings(const QString& password) const;
    /// "name — redis://host:port"
    QString summary() const;
};

} // namespace tollgate::ui
