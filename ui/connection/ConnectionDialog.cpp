#include "ui/connection/ConnectionDialog.h"

#include "ui/common/Widgets.h"
#include "ui/connection/ProfileStore.h"
#include "ui/connection/SentinelBox.h"
#include "ui/connection/SshTunnelBox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

template <typename W>
W* named(W* widget, const char* name)
{
    widget->setObjectName(QLatin1String(name));
    return widget;
}

} // namespace

ConnectionDialog::ConnectionDialog(ProfileStore* store, QWidget* parent)
    : QDialog(parent), m_store(store)
{
    setObjectName(QStringLiteral("connectionDialog"));
    setWindowTitle(tr("Connect to Redis"));
    buildForm();
    connect(m_store, &ProfileStore::keychainAvailabilityChanged, this,
            &ConnectionDialog::updateKeychainNote);
    updateKeychainNote();
    reloadList(m_store->lastUsed());
    if (m_list->count() == 0)
        newProfile();
    revalidate();
}

void ConnectionDialog::buildForm()
{
    m_list = named(new QListWidget, "profileListWidget");
    m_list->setMinimumWidth(180);
    m_newButton = named(new QPushButton(tr("N&ew")), "newProfileButton");
    m_deleteButton = named(new QPushButton(tr("&Delete")), "deleteProfileButton");
    m_newButton->setAutoDefault(false);
    m_deleteButton->setAutoDefault(false);
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(m_newButton);
    listButtons->addWidget(m_deleteButton);
    auto* left = new QVBoxLayout;
    left->addWidget(new QLabel(tr("Profiles")));
    left->addWidget(m_list);
    left->addLayout(listButtons);

    m_name = named(new QLineEdit, "nameLineEdit");
    m_transport = named(new QComboBox, "transportComboBox");
    m_transport->addItems({tr("TCP"), tr("Unix socket")});
    m_host = named(new QLineEdit, "hostLineEdit");
    m_host->setPlaceholderText(QStringLiteral("127.0.0.1"));
    m_port = named(new QSpinBox, "portSpinBox");
    m_port->setRange(0, 65535); // 0 is shown as an error rather than silently clamped
    m_socket = named(new QLineEdit, "socketLineEdit");
    m_socket->setPlaceholderText(QStringLiteral("/run/redis/redis.sock"));
    m_user = named(new QLineEdit, "userLineEdit");
    m_user->setPlaceholderText(tr("default"));
    m_password = named(new QLineEdit, "passwordLineEdit");
    m_password->setEchoMode(QLineEdit::Password);
    m_savePassword =
        named(new QCheckBox(tr("Remember in the system &keychain")), "savePasswordCheckBox");
    m_savePassword->setChecked(true);
    m_database = named(new QSpinBox, "databaseSpinBox");
    m_database->setRange(0, 15999);
    m_prefix = named(new QLineEdit, "prefixLineEdit");
    m_actor = named(new QLineEdit, "actorLineEdit");
    m_actor->setPlaceholderText(tr("%1 (recorded in the audit log)").arg(Session::defaultActor()));
    m_readOnly = named(new QCheckBox(tr("&Read-only: disable every write")), "readOnlyCheckBox");

    m_tls = named(new QGroupBox(tr("T&LS")), "tlsGroupBox");
    m_tls->setCheckable(true);
    m_ca = named(new QLineEdit, "caLineEdit");
    m_ca->setPlaceholderText(tr("system CAs"));
    m_cert = named(new QLineEdit, "certLineEdit");
    m_key = named(new QLineEdit, "keyLineEdit");
    m_serverName = named(new QLineEdit, "serverNameLineEdit");
    m_serverName->setPlaceholderText(tr("the host"));
    m_verify = named(new QCheckBox(tr("&Verify the server certificate")), "verifyCheckBox");
    auto* tlsForm = new QFormLayout(m_tls);
    tlsForm->addRow(tr("CA file:"), m_ca);
    tlsForm->addRow(tr("Client certificate:"), m_cert);
    tlsForm->addRow(tr("Client key:"), m_key);
    tlsForm->addRow(tr("Server name:"), m_serverName);
    tlsForm->addRow(QString(), m_verify);
    m_ssh = new SshTunnelBox;

    auto* form = new QFormLayout;
    form->addRow(tr("Na&me:"), m_name);
    form->addRow(tr("&Transport:"), m_transport);
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("&Port:"), m_port);
    form->addRow(tr("&Socket:"), m_socket);
    form->addRow(tr("ACL &user:"), m_user);
    form->addRow(tr("Pass&word:"), m_password);
    form->addRow(QString(), m_savePassword);
    form->addRow(tr("Data&base:"), m_database); // Alt+D: Delete
    form->addRow(tr("Key pre&fix:"), m_prefix); // Alt+R: Read-only
    form->addRow(tr("&Actor:"), m_actor);
    form->addRow(QString(), m_readOnly);
    m_sentinel = new SentinelBox;
    form->addRow(m_sentinel);
    form->addRow(m_tls);
    form->addRow(m_ssh);

    m_keychainNote = named(new QLabel, "keychainLabel");
    m_keychainNote->setWordWrap(true);
    m_error = named(new QLabel, "errorLabel");
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e; font-weight: bold;"));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_connect = named(buttons->addButton(tr("&Connect"), QDialogButtonBox::AcceptRole),
                      "connectButton");
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Not QDialogButtonBox::accepted: Connect validates and saves first.
    connect(m_connect, &QPushButton::clicked, this, &ConnectionDialog::tryConnect);

    // The form scrolls (Sentinel, TLS and SSH make it taller than a 768-px screen); the
    // buttons stay below it, always in view.
    auto* fields = new QWidget;
    auto* fieldsLayout = new QVBoxLayout(fields);
    fieldsLayout->setContentsMargins(0, 0, 0, 0);
    fieldsLayout->addLayout(form);
    fieldsLayout->addStretch();
    auto* scroll = named(new QScrollArea, "formScrollArea");
    scroll->setWidget(fields);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* right = new QVBoxLayout;
    right->addWidget(scroll, 1);
    right->addWidget(m_keychainNote);
    right->addWidget(m_error);
    right->addWidget(buttons);
    auto* top = new QHBoxLayout(this);
    top->addLayout(left);
    top->addLayout(right, 1);
    // As tall as the whole form where the screen has room; no wider than the form needs.
    scroll->setMinimumWidth(fields->minimumSizeHint().width() +
                            scroll->verticalScrollBar()->sizeHint().width());
    fitToScreen(this, QSize(sizeHint().width(), fields->sizeHint().height() + 120));
    // Only now that the button is inside the dialog does it become the dialog's default;
    // otherwise QDialog picks the first auto-default button (Cancel) for Return.
    buttons->button(QDialogButtonBox::Cancel)->setAutoDefault(false);
    // Some platform themes give Cancel "&Cancel", which would clash with &Connect; Esc cancels.
    buttons->button(QDialogButtonBox::Cancel)->setText(tr("Cancel"));
    m_connect->setDefault(true);

    for (QLineEdit* edit : {m_name, m_host, m_socket, m_ca, m_cert, m_key, m_serverName, m_user,
                            m_prefix, m_actor})
        connect(edit, &QLineEdit::textChanged, this, &ConnectionDialog::revalidate);
    for (QSpinBox* spin : {m_port, m_database})
        connect(spin, &QSpinBox::valueChanged, this, &ConnectionDialog::revalidate);
    connect(m_transport, &QComboBox::currentIndexChanged, this, &ConnectionDialog::revalidate);
    connect(m_tls, &QGroupBox::toggled, this, &ConnectionDialog::revalidate);
    connect(m_ssh, &SshTunnelBox::edited, this, &ConnectionDialog::revalidate);
    connect(m_sentinel, &SentinelBox::changed, this, &ConnectionDialog::revalidate);
    // Connecting to a replica needs a read-only profile.
    connect(m_readOnly, &QCheckBox::toggled, this, &ConnectionDialog::revalidate);
    connect(m_list, &QListWidget::currentTextChanged, this, [this](const QString& name) {
        if (!m_loading && !name.isEmpty())
            selectProfile(name);
    });
    connect(m_list, &QListWidget::itemActivated, this, &ConnectionDialog::tryConnect);
    connect(m_newButton, &QPushButton::clicked, this, &ConnectionDialog::newProfile);
    connect(m_deleteButton, &QPushButton::clicked, this, &ConnectionDialog::deleteProfile);
}

void ConnectionDialog::reloadList(const QString& select)
{
    m_loading = true;
    m_list->clear();
    m_list->addItems(m_store->names());
    m_loading = false;
    const auto found = m_list->findItems(select, Qt::MatchExactly);
    if (!found.isEmpty())
        m_list->setCurrentItem(found.first());
    else if (m_list->count() > 0)
        m_list->setCurrentRow(0);
}

void ConnectionDialog::selectProfile(const QString& name)
{
    const std::optional<ConnectionProfile> loaded = m_store->load(name);
    if (!loaded)
        return;
    showProfile(*loaded);
    m_store->readPassword(name, this, [this, name](const ProfileStore::PasswordResult& result) {
        if (result.found && m_shownProfile == name && m_password->text().isEmpty())
            m_password->setText(result.password);
    });
    if (loaded->connection.sentinel.enabled())
        m_store->readPassword(SentinelBox::keychainName(name), this,
                              [this, name](const ProfileStore::PasswordResult& result) {
                                  if (result.found && m_shownProfile == name)
                                      m_sentinel->setPassword(result.password);
                              });
}

void ConnectionDialog::showProfile(const ConnectionProfile& p)
{
    m_loading = true;
    m_shownProfile = p.name;
    const ConnectionOptions& c = p.connection;
    m_name->setText(p.name);
    m_transport->setCurrentIndex(c.transport == ConnectionOptions::Transport::Unix ? 1 : 0);
    m_host->setText(c.host);
    m_port->setValue(c.port);
    m_socket->setText(c.socketPath);
    m_user->setText(c.user);
    m_password->clear();
    m_database->setValue(c.database);
    m_prefix->setText(QString::fromUtf8(p.prefix));
    m_actor->setText(p.actor);
    m_readOnly->setChecked(p.readOnly);
    m_tls->setChecked(c.tls.enabled);
    m_ca->setText(c.tls.caFile);
    m_cert->setText(c.tls.certFile);
    m_key->setText(c.tls.keyFile);
    m_serverName->setText(c.tls.serverName);
    m_verify->setChecked(c.tls.verifyPeer);
    m_ssh->setOptions(c.ssh);
    m_sentinel->setOptions(c.sentinel);
    m_sentinel->setPassword({});
    m_loading = false;
    revalidate();
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile p;
    p.name = m_name->text().trimmed();
    ConnectionOptions& c = p.connection;
    c.transport = m_transport->currentIndex() == 1 ? ConnectionOptions::Transport::Unix
                                                   : ConnectionOptions::Transport::Tcp;
    c.host = m_host->text().trimmed();
    c.port = quint16(m_port->value());
    c.socketPath = m_socket->text().trimmed();
    c.user = m_user->text().trimmed();
    c.database = m_database->value();
    c.tls.enabled = m_tls->isChecked();
    c.tls.caFile = m_ca->text().trimmed();
    c.tls.certFile = m_cert->text().trimmed();
    c.tls.keyFile = m_key->text().trimmed();
    c.tls.serverName = m_serverName->text().trimmed();
    c.tls.verifyPeer = m_verify->isChecked();
    c.ssh = m_ssh->options();
    if (const auto sentinel = m_sentinel->options(); sentinel && sentinel->enabled()) {
        c.sentinel = *sentinel;
        c.host.clear(); // named by the sentinels
    }
    p.prefix = m_prefix->text().trimmed().toUtf8();
    p.actor = m_actor->text().trimmed();
    p.readOnly = m_readOnly->isChecked();
    return p;
}

QString ConnectionDialog::password() const
{
    return m_password->text();
}

QString ConnectionDialog::errorText() const
{
    return m_error->text();
}

void ConnectionDialog::revalidate()
{
    const bool useSocket = m_transport->currentIndex() == 1;
    const bool sentinel = m_sentinel->isChecked(); // the sentinels name the server
    m_host->setEnabled(!useSocket && !sentinel);
    m_port->setEnabled(!useSocket && !sentinel);
    m_socket->setEnabled(useSocket);
    if (m_loading)
        return;
    const auto sentinelOptions = m_sentinel->options();
    Status status = sentinelOptions ? m_ssh->validate() : Status(sentinelOptions.error());
    if (status)
        status = profile().validate();
    m_error->setText(status ? QString() : status.error().message);
    m_error->setVisible(!status);
    m_connect->setEnabled(bool(status));
}

void ConnectionDialog::updateKeychainNote()
{
    const bool available = m_store->keychainAvailable();
    m_savePassword->setVisible(available);
    m_keychainNote->setVisible(!available);
    m_keychainNote->setText(
        tr("No keychain service is running (%1), so passwords are not saved anywhere: "
           "you will be asked for the password each time you connect.")
            .arg(m_store->keychainProblem()));
}

void ConnectionDialog::newProfile()
{
    ConnectionProfile fresh;
    QString name = tr("local");
    for (int n = 2; m_store->names().contains(name); ++n)
        name = tr("local %1").arg(n);
    fresh.name = name;
    m_list->clearSelection();
    showProfile(fresh);
    m_name->setFocus();
    m_name->selectAll();
}

void ConnectionDialog::deleteProfile()
{
    const QString name = m_list->currentItem() ? m_list->currentItem()->text() : QString();
    if (name.isEmpty())
        return;
    m_store->remove(name);
    reloadList(QString());
    if (m_list->count() == 0)
        newProfile();
}

void ConnectionDialog::tryConnect()
{
    revalidate();
    if (!m_connect->isEnabled())
        return; // the error is on screen
    const ConnectionProfile p = profile();
    m_store->save(p);
    m_store->setLastUsed(p.name);
    if (m_store->keychainAvailable() && m_savePassword->isChecked() && !password().isEmpty())
        m_store->writePassword(p.name, password(), m_store, {});
    else if (m_store->keychainAvailable() && !m_savePassword->isChecked())
        m_store->deletePassword(p.name);
    const QString sentinelKey = SentinelBox::keychainName(p.name);
    if (m_store->keychainAvailable() && m_savePassword->isChecked() &&
        !m_sentinel->password().isEmpty())
        m_store->writePassword(sentinelKey, m_sentinel->password(), m_store, {});
    else if (m_store->keychainAvailable())
        m_store->deletePassword(sentinelKey);
    accept();
}

} // namespace tollgate::ui
