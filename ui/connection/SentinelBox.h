#pragma once

#include "tollgate/ConnectionOptions.h"
#include "tollgate/Result.h"

#include <QGroupBox>

class QCheckBox;
class QLineEdit;

namespace tollgate::ui {

/// The "Sentinel" part of a connection profile, checked for a deployment watched by Redis
/// Sentinel: the sentinels ("host:port, host:port"), the master name, the sentinels' own ACL
/// user and password, and whether to connect to a replica (read-only profiles only). The host
/// and port of the profile are then unused: the sentinels name the server.
class SentinelBox : public QGroupBox
{
    Q_OBJECT
public:
    explicit SentinelBox(QWidget* parent = nullptr);

    void setOptions(const SentinelOptions& options);
    /// What is entered; masterName empty when the box is unchecked. The sentinels' password is
    /// kept apart (password()), like the server's.
    Result<SentinelOptions> options() const;
    QString password() const;
    void setPassword(const QString& password);
    /// Under which name the keychain keeps the sentinels' password of `profile`.
    static QString keychainName(const QString& profile)
    {
        return profile + QStringLiteral(" (sentinels)");
    }

Q_SIGNALS:
    void changed();

private:
    QLineEdit* m_sentinels;
    QLineEdit* m_master;
    QLineEdit* m_user;
    QLineEdit* m_password;
    QCheckBox* m_replica;
};

} // namespace tollgate::ui
