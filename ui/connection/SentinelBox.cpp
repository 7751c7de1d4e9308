#include "ui/connection/SentinelBox.h"

#include "core/sentinel/SentinelUrl.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLineEdit>

namespace tollgate::ui {

SentinelBox::SentinelBox(QWidget* parent)
    : QGroupBox(tr("Sent&inel"), parent), m_sentinels(new QLineEdit(this)),
      m_master(new QLineEdit(this)), m_user(new QLineEdit(this)), m_password(new QLineEdit(this)),
      m_replica(new QCheckBox(tr("Connect to a replica (read-only profiles)"), this))
{
    setObjectName(QStringLiteral("sentinelGroupBox"));
    setCheckable(true);
    setChecked(false);
    m_sentinels->setObjectName(QStringLiteral("sentinelsLineEdit"));
    m_sentinels->setPlaceholderText(QStringLiteral("10.0.0.1:26379, 10.0.0.2:26379"));
    m_master->setObjectName(QStringLiteral("masterNameLineEdit"));
    m_master->setPlaceholderText(QStringLiteral("mymaster"));
    m_user->setObjectName(QStringLiteral("sentinelUserLineEdit"));
    m_user->setPlaceholderText(tr("none"));
    m_password->setObjectName(QStringLiteral("sentinelPasswordLineEdit"));
    m_password->setEchoMode(QLineEdit::Password);
    m_replica->setObjectName(QStringLiteral("replicaCheckBox"));
    auto* form = new QFormLayout(this);
    form->addRow(tr("Sentinels:"), m_sentinels);
    form->addRow(tr("Master name:"), m_master);
    form->addRow(tr("Sentinel user:"), m_user);
    form->addRow(tr("Sentinel password:"), m_password);
    form->addRow(QString(), m_replica);
    for (QLineEdit* edit : {m_sentinels, m_master, m_user, m_password})
        connect(edit, &QLineEdit::textChanged, this, &SentinelBox::changed);
    connect(m_replica, &QCheckBox::toggled, this, &SentinelBox::changed);
    connect(this, &QGroupBox::toggled, this, &SentinelBox::changed);
}

void SentinelBox::setOptions(const SentinelOptions& options)
{
    m_sentinels->setText(
        sentinelListText(options.sentinels).replace(QLatin1Char(','), QStringLiteral(", ")));
    m_master->setText(options.masterName);
    m_user->setText(options.user);
    m_replica->setChecked(options.replica);
    setChecked(options.enabled());
}

Result<SentinelOptions> SentinelBox::options() const
{
    if (!isChecked())
        return SentinelOptions{};
    // The same reading as a URL's: one way to spell a list of sentinels.
    auto sentinels = parseSentinelList(m_sentinels->text());
    if (!sentinels)
        return Error{
            ErrorKind::InvalidInput,
            tr("Sentinels: host:port, host:port, ... (%1)").arg(sentinels.error().message)};
    SentinelOptions options;
    options.sentinels = std::move(*sentinels);
    options.masterName = m_master->text().trimmed();
    if (options.masterName.isEmpty())
        return Error{ErrorKind::InvalidInput, tr("Master name: required with Sentinel")};
    options.user = m_user->text().trimmed();
    options.password = m_password->text();
    options.replica = m_replica->isChecked();
    return options;
}

QString SentinelBox::password() const
{
    return m_password->text();
}

void SentinelBox::setPassword(const QString& password)
{
    m_password->setText(password);
}

} // namespace tollgate::ui
