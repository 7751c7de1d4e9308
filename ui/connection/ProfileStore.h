#pragma once

#include "ui/connection/ConnectionProfile.h"

#include <QObject>
#include <QSettings>
#include <functional>
#include <memory>
#include <optional>

namespace tollgate::ui {

/// Connection profiles: everything but the password in QSettings; the password in the OS
/// keychain through QtKeychain (asynchronous jobs). Without a keychain service the password
/// is kept nowhere and keychainAvailable() turns false, so the dialog asks each time.
class ProfileStore : public QObject
{
    Q_OBJECT
public:
    struct PasswordResult
    {
        bool found = false;
        QString password;
        QString error; // empty on success or "no entry"
    };
    using PasswordCallback = std::function<void(const PasswordResult&)>;

    /// `settings` null = the user's default settings (Tollgate / tollgate).
    explicit ProfileStore(std::unique_ptr<QSettings> settings = {}, QObject* parent = nullptr);
    ~ProfileStore() override;

    QStringList names() const;
    std::optional<ConnectionProfile> load(const QString& name) const;
    /// Writes the profile (never its password) and syncs the settings file.
    void save(const ConnectionProfile& profile);
    void remove(const QString& name);
    QString lastUsed() const;
    void setLastUsed(const QString& name);

    /// False once a keychain job failed because no service runs (or when built without
    /// QtKeychain); passwords are then asked for every time.
    bool keychainAvailable() const { return m_keychainAvailable; }
    QString keychainProblem() const { return m_keychainProblem; }

    void readPassword(const QString& profile, QObject* context, PasswordCallback done);
    void writePassword(const QString& profile, const QString& password, QObject* context,
                       PasswordCallback done);
    void deletePassword(const QString& profile);

Q_SIGNALS:
    void keychainAvailabilityChanged(bool available);

private:
    void keychainFailed(const QString& why);
    static QString group(const QString& name);

    std::unique_ptr<QSettings> m_settings;
    bool m_keychainAvailable = true;
    QString m_keychainProblem;
};

} // namespace tollgate::ui
