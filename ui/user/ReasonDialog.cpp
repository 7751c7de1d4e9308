#include "ui/user/ReasonDialog.h"

#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"
#include "ui/common/ReasonCheck.h"
#include "ui/common/Widgets.h"
#include "ui/user/Guarded.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tollgate::ui {

ReasonDialog::ReasonDialog(Session* session, Operation operation, const QByteArray& user,
                           const QList<QByteArray>& scopes, QWidget* parent)
    : QDialog(parent), m_session(session), m_operation(operation), m_user(user)
{
    const bool unban = operation == Operation::Unban;
    setObjectName(unban ? QStringLiteral("unbanDialog") : QStringLiteral("resetDialog"));
    setWindowTitle(unban ? tr("Unban %1").arg(boundedDisplayId(user))
                         : tr("Reset counters of %1").arg(boundedDisplayId(user)));

    m_scope = new QComboBox(this);
    m_scope->setObjectName(QStringLiteral("scopeComboBox"));
    m_scope->addItem(unban ? tr("Every ban of this user") : tr("Every action"), QByteArray());
    for (const QByteArray& action : scopes) {
        m_scope->addItem(action.isEmpty() ? tr("The ban of all actions") : displayId(action),
                         action);
    }
    m_reason = makeReasonLineEdit(this);
    m_error = makeErrorLabel(this);
    if (unban) {
        m_alsoReset = new QCheckBox(tr("Also reset the c&ounters (start from zero)"), this);
        m_alsoReset->setObjectName(QStringLiteral("alsoResetCheckBox"));
        m_alsoReset->setToolTip(
            tr("Without this, a user unbanned mid-window is still at the limit until it ends"));
        m_outlookLabel = new QLabel(this);
        m_outlookLabel->setObjectName(QStringLiteral("holdWarningLabel"));
        m_outlookLabel->setTextFormat(Qt::PlainText);
        m_outlookLabel->setWordWrap(true);
        m_outlookLabel->hide();
    }

    QDialogButtonBox* buttons = makeWriteButtons(
        this, unban ? tr("&Unban") : tr("Re&set"),
        unban ? QStringLiteral("applyUnbanButton") : QStringLiteral("applyResetButton"), &m_apply);
    connect(m_apply, &QPushButton::clicked, this, &ReasonDialog::apply);

    auto* form = new QFormLayout;
    form->addRow(tr("User:"), new QLabel(boundedDisplayId(user), this));
    form->addRow(unban ? tr("&Lift:") : tr("Counters &of:"), m_scope);
    form->addRow(tr("&Reason:"), m_reason);
    if (m_alsoReset)
        form->addRow(QString(), m_alsoReset);
    auto* layout = new QVBoxLayout(this);
    if (m_outlookLabel)
        layout->addWidget(m_outlookLabel);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    m_check = new ReasonCheck(m_reason, m_error, m_apply);
    connect(m_check, &ReasonCheck::edited, this, &ReasonDialog::validate);
    connect(m_scope, &QComboBox::currentIndexChanged, this, &ReasonDialog::showOutlook);
    validate();
    m_reason->setFocus(Qt::OtherFocusReason); // the one thing to type
    resize(420, sizeHint().height());
}

void ReasonDialog::setOutlook(
    std::function<std::pair<QString, bool>(const QByteArray& action)> outlook)
{
    m_outlook = std::move(outlook);
    showOutlook();
}

void ReasonDialog::showOutlook()
{
    if (!m_outlookLabel || !m_outlook)
        return;
    const auto [text, wouldNotHold] = m_outlook(m_scope->currentData().toByteArray());
    m_outlookLabel->setText(text);
    m_outlookLabel->setVisible(!text.isEmpty());
    // Warn-coloured when the unban would not hold; what would hold is checked for them.
    QPalette palette = m_outlookLabel->palette();
    palette.setColor(QPalette::WindowText,
                     wouldNotHold ? toneColor(Tone::Warn, palette)
                                  : QApplication::palette().color(QPalette::WindowText));
    m_outlookLabel->setPalette(palette);
    if (wouldNotHold)
        m_alsoReset->setChecked(true);
    resize(width(), sizeHint().height());
}

void ReasonDialog::validate()
{
    m_check->show(Status(Unit{}), m_busy); // the reason is all there is to check
}

QString ReasonDialog::describe(const QByteArray& action) const
{
    const QString user = boundedDisplayId(m_user);
    if (m_operation == Operation::Unban) {
        return action.isEmpty()
                   ? tr("every ban of user \"%1\"").arg(user)
                   : tr("the ban of user \"%1\" on action \"%2\"").arg(user, displayId(action));
    }
    return action.isEmpty()
               ? tr("every rate-limit counter of user \"%1\" (all actions, all windows)").arg(user)
               : tr("the rate-limit counters of user \"%1\" for action \"%2\" (all windows)")
                     .arg(user, displayId(action));
}

void ReasonDialog::apply()
{
    const QString reason = m_check->reason();
    if (reason.isEmpty() || m_busy) {
        validate();
        return;
    }
    const QByteArray action = m_scope->currentData().toByteArray();
    if (m_operation == Operation::Reset) {
        Ask::confirm(this, tr("Reset counters"),
                     tr("Delete %1? The user starts from zero; bans are kept.").arg(describe(action)),
                     [this, action, reason] { submit(action, reason); });
        return;
    }
    submit(action, reason);
}

void ReasonDialog::submit(const QByteArray& action, const QString& reason)
{
    if (m_busy)
        return;
    m_busy = true;
    m_apply->setEnabled(false);
    auto done = [this](Result<qint64> count) {
        m_busy = false;
        validate();
        if (!count) {
            m_error->setText(count.error().toString());
            Ask::warn(this,
                      m_operation == Operation::Unban ? tr("Unban failed") : tr("Reset failed"),
                      count.error().toString());
            return;
        }
        Q_EMIT applied(*count);
        accept();
    };
    const Moderation moderation = m_session->moderation();
    if (m_operation == Operation::Unban && m_alsoReset && m_alsoReset->isChecked()) {
        // Two scripts, each atomic with its own audit entry; the reset only after the unban
        // succeeded, so a failure never leaves counters reset under a ban still in place.
        moderation.unban(m_user, action, m_session->actor(), reason, m_session,
                         guarded<qint64>(this, [this, action, reason, done](Result<qint64> lifted) {
                             if (!lifted)
                                 return done(lifted);
                             m_session->moderation().reset(
                                 m_user, action, m_session->actor(), reason, m_session,
                                 guarded<qint64>(this, [lifted, done](Result<qint64> reset) {
                                     if (!reset) {
                                         Error error = reset.error();
                                         error.message = tr("The ban was lifted, but resetting "
                                                            "the counters failed: %1")
                                                             .arg(error.message);
                                         return done(error);
                                     }
                                     done(lifted);
                                 }));
                         }));
    } else if (m_operation == Operation::Unban) {
        moderation.unban(m_user, action, m_session->actor(), reason, m_session,
                         guarded<qint64>(this, done));
    } else
        moderation.reset(m_user, action, m_session->actor(), reason, m_session,
                         guarded<qint64>(this, done));
}

} // namespace tollgate::ui
