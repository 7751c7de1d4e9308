#include "ui/connection/SshTunnelBox.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLineEdit>

namespace tollgate::ui {

SshTunnelBox::SshTunnelBox(QWidget* parent)
    : QGroupBox(tr("SSH tu&nnel"), parent), m_destination(new QLineEdit),
      m_identity(new QLineEdit), m_config(new QLineEdit),
      m_acceptNewHostKey(new QCheckBox(tr("Accept a new host ke&y (record it in known_hosts)")))
{
    setObjectName(QStringLiteral("sshGroupBox"));
    setCheckable(true);
    setChecked(false);
    m_destination->setObjectName(QStringLiteral("sshDestinationLineEdit"));
    m_destination->setPlaceholderText(tr("user@bastion:22 or a ~/.ssh/config host"));
    m_identity->setObjectName(QStringLiteral("sshIdentityLineEdit"));
    m_identity->setPlaceholderText(tr("the agent and ~/.ssh/config"));
    m_config->setObjectName(QStringLiteral("sshConfigLineEdit"));
    m_config->setPlaceholderText(QStringLiteral("~/.ssh/config"));
    m_acceptNewHostKey->setObjectName(QStringLiteral("sshAcceptNewHostKeyCheckBox"));
    auto* form = new QFormLayout(this);
    form->addRow(tr("SSH server:"), m_destination);
    form->addRow(tr("Key file:"), m_identity);
    form->addRow(tr("SSH config:"), m_config);
    form->addRow(QString(), m_acceptNewHostKey);
    for (QLineEdit* edit : {m_destination, m_identity, m_config})
        connect(edit, &QLineEdit::textChanged, this, &SshTunnelBox::edited);
    connect(m_acceptNewHostKey, &QCheckBox::toggled, this, &SshTunnelBox::edited);
    connect(this, &QGroupBox::toggled, this, &SshTunnelBox::edited);
}

SshOptions SshTunnelBox::options() const
{
    SshOptions options;
    if (!isChecked())
        return options;
    options.destination = m_destination->text().trimmed();
    options.identityFile = m_identity->text().trimmed();
    options.configFile = m_config->text().trimmed();
    options.acceptNewHostKey = m_acceptNewHostKey->isChecked();
    return options;
}

Status SshTunnelBox::validate() const
{
    if (isChecked() && m_destination->text().trimmed().isEmpty())
        return Error{ErrorKind::InvalidInput, tr("SSH server: required")};
    return Unit{};
}

void SshTunnelBox::setOptions(const SshOptions& options)
{
    setChecked(options.enabled());
    m_destination->setText(options.destination);
    m_identity->setText(options.identityFile);
    m_config->setText(options.configFile);
    m_acceptNewHostKey->setChecked(options.acceptNewHostKey);
}

} // namespace tollgate::ui
