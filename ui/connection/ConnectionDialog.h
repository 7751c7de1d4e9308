#pragma once

#include "ui/connection/ConnectionProfile.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace tollgate::ui {

class ProfileStore;
class SentinelBox;

/// Pick or edit a connection profile and connect. Every edit is validated at once (the error
/// is shown and Connect disabled); Connect saves the profile (the password only to the
/// keychain) and accepts.
class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionDialog(ProfileStore* store, QWidget* parent = nullptr);

    /// The profile as currently edited.
    ConnectionProfile profile() const;
    QString password() const;
    Session::Settings sessionSettings() const { return profile().toSessionSettings(password()); }
    void selectProfile(const QString& name);
    /// The current validation message, empty when valid.
    QString errorText() const;

private:
    void buildForm();
    void reloadList(const QString& select);
    void showProfile(const ConnectionProfile& profile);
    void revalidate();
    void updateKeychainNote();
    void newProfile();
    void deleteProfile();
    void tryConnect();

    ProfileStore* m_store;
    bool m_loading = false;
    QString m_shownProfile;

    QListWidget* m_list;
    QPushButton* m_newButton;
    QPushButton* m_deleteButton;
    QLineEdit* m_name;
    QComboBox* m_transport;
    QLineEdit* m_host;
    QSpinBox* m_port;
    QLineEdit* m_socket;
    QGroupBox* m_tls;
    SentinelBox* m_sentinel;
    QLineEdit* m_ca;
    QLineEdit* m_cert;
    QLineEdit* m_key;
    QLineEdit* m_serverName;
    QCheckBox* m_verify;
    QLineEdit* m_user;
    QLineEdit* m_password;
    QCheckBox* m_savePassword;
    QSpinBox* m_database;
    QLineEdit* m_prefix;
    QLineEdit* m_actor;
    QCheckBox* m_readOnly;
    QLabel* m_keychainNote;
    QLabel* m_error;
    QPushButton* m_connect;
};

} // namespace tollgate::ui
