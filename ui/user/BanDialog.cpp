#include "ui/user/BanDialog.h"

#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/ExpiryChooser.h"
#include "ui/common/ReasonCheck.h"
#include "ui/common/Widgets.h"
#include "ui/user/Guarded.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tollgate::ui {

BanDialog::BanDialog(Session* session, const QByteArray& user, const QList<QByteArray>& actions,
                     QWidget* parent)
    : QDialog(parent), m_session(session), m_user(user)
{
    setObjectName(QStringLiteral("banDialog"));
    setWindowTitle(tr("Ban %1").arg(boundedDisplayId(user)));

    m_scope = new QComboBox(this);
    m_scope->setObjectName(QStringLiteral("scopeComboBox"));
    m_scope->addItem(tr("All actions"), QByteArray());
    for (const QByteArray& action : actions)
        m_scope->addItem(displayId(action), action);

    m_expiry = new ExpiryChooser(
        tr("ban"),
        {QStringLiteral("10m"), QStringLiteral("1h"), QStringLiteral("1d"), QStringLiteral("1w")},
        1, this);

    m_reason = makeReasonLineEdit(this);
    m_error = makeErrorLabel(this);

    QDialogButtonBox* buttons =
        makeWriteButtons(this, tr("&Ban"), QStringLiteral("applyBanButton"), &m_apply);
    connect(m_apply, &QPushButton::clicked, this, &BanDialog::apply);

    auto* form = new QFormLayout;
    form->addRow(tr("User:"), makeUserLabel(user, this));
    form->addRow(tr("&Scope:"), m_scope);
    form->addRow(tr("Duration:"), m_expiry);
    form->addRow(tr("&Reason:"), m_reason);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    m_check = new ReasonCheck(m_reason, m_error, m_apply, session, Session::Write::Ban);
    connect(m_check, &ReasonCheck::edited, this, &BanDialog::validate);
    connect(m_expiry, &ExpiryChooser::changed, this, &BanDialog::validate);
    validate();
    m_reason->setFocus(Qt::OtherFocusReason); // the scope and a 1h ban are the usual defaults
    resize(460, sizeHint().height());
}

Result<BanRequest> BanDialog::request() const
{
    return m_check->require(scheduled());
}

Result<BanRequest> BanDialog::scheduled() const
{
    BanRequest request;
    request.user = m_user;
    request.action = m_scope->currentData().toByteArray();
    request.actor = m_session->actor();
    request.reason = m_check->reason();
    const Result<Expiry> expiry = m_expiry->expiry();
    if (!expiry)
        return expiry.error();
    request.durationMs = expiry->durationMs;
    request.untilMs = expiry->untilMs;
    return request;
}

void BanDialog::validate()
{
    m_check->show(scheduled(), m_busy);
}

void BanDialog::apply()
{
    const Result<BanRequest> current = request();
    if (!current || m_busy) {
        validate();
        return;
    }
    const BanRequest request = *current;
    for (const BanInfo& ban : m_existing) {
        if (ban.action != request.action)
            continue;
        const QString until = ban.untilMs == 0 ? tr("permanent")
                                               : tr("until %1").arg(formatTime(ban.untilMs));
        Ask::confirm(this, tr("Replace ban"),
                     tr("This scope is already banned (%1, by %2: \"%3\"). Replace that ban "
                        "with the new one?")
                         .arg(until, displayId(ban.actor.toUtf8()), displayId(ban.reason.toUtf8())),
                     [this, request] { submit(request); });
        return;
    }
    submit(request);
}

void BanDialog::submit(const BanRequest& request)
{
    if (m_busy)
        return;
    m_busy = true;
    m_apply->setEnabled(false);
    m_session->moderation().ban(request, m_session,
                                guarded<BanInfo>(this, [this](Result<BanInfo> ban) {
                                    m_busy = false;
                                    if (!ban) {
                                        m_error->setText(ban.error().toString());
                                        validate();
                                        m_error->setText(ban.error().toString());
                                        Ask::warn(this, tr("Ban failed"), ban.error().toString());
                                        return;
                                    }
                                    Q_EMIT banned(*ban);
                                    accept();
                                }));
}

} // namespace tollgate::ui
