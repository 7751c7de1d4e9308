#include "ui/user/ReasonDialog.h"

#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"
#include "ui/common/Palette.h"
#include "ui/common/ReasonCheck.h"
#include "ui/common/Widgets.h"
#include "ui/user/Guarded.h"
#include "ui/user/OverrideThenUnban.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>

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
        m_step = new QComboBox(this);
        m_step->setObjectName(QStringLiteral("holdComboBox"));
        m_step->addItem(tr("Lift the ban only"), int(UnbanStep::LiftOnly));
        m_step->addItem(tr("Lift it and reset the counters (start from zero)"),
                        int(UnbanStep::ResetToo));
        m_step->addItem(tr("Lift it and give more for a day (limits above the rate)"),
                        int(UnbanStep::GiveMore));
        m_step->addItem(tr("Lift it and exempt for an hour"), int(UnbanStep::Exempt));
        // The overrides need what the outlook works out (their scope, the limits to give).
        for (UnbanStep needsOutlook : {UnbanStep::GiveMore, UnbanStep::Exempt})
            qobject_cast<QStandardItemModel*>(m_step->model())
                ->item(int(needsOutlook))
                ->setEnabled(false);
        m_step->setToolTip(tr("An unban keeps the counters: a user at the limit, or still "
                              "sending fast, is banned again at once"));
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
    form->addRow(tr("User:"), makeUserLabel(user, this));
    form->addRow(unban ? tr("&Lift:") : tr("Counters &of:"), m_scope);
    if (m_step)
        form->addRow(tr("&Then:"), m_step);
    form->addRow(tr("&Reason:"), m_reason);
    auto* layout = new QVBoxLayout(this);
    if (m_outlookLabel)
        layout->addWidget(m_outlookLabel);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    m_check = new ReasonCheck(m_reason, m_error, m_apply, session,
                              unban ? Session::Write::Unban : Session::Write::Reset);
    connect(m_check, &ReasonCheck::edited, this, &ReasonDialog::validate);
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] { showOutlook(false); });
    if (m_step) // the scope's outlook again, with this step's verdict
        connect(m_step, &QComboBox::currentIndexChanged, this, [this] { showOutlook(true); });
    validate();
    m_reason->setFocus(Qt::OtherFocusReason); // the one thing to type
    resize(520, sizeHint().height());
}

void ReasonDialog::setOutlook(std::function<UnbanOutlook(const QByteArray& action)> outlook)
{
    m_outlook = std::move(outlook);
    showOutlook(false);
}

QByteArray ReasonDialog::scope() const
{
    return m_scope->currentData().toByteArray();
}

UnbanStep ReasonDialog::step() const
{
    return m_step ? UnbanStep(m_step->currentData().toInt()) : UnbanStep::LiftOnly;
}

void ReasonDialog::showOutlook(bool keepStep)
{
    if (!m_outlookLabel || !m_outlook)
        return;
    m_shown = m_outlook(m_scope->currentData().toByteArray());
    auto* items = qobject_cast<QStandardItemModel*>(m_step->model());
    for (int i = 0; i < kUnbanStepCount; ++i)
        items->item(i)->setEnabled(m_shown.steps[size_t(i)].offered);
    // A new scope (or the first outlook): the first step that holds is picked for support.
    if (!keepStep || !m_shown.step(step()).offered) {
        const QSignalBlocker quiet(m_step);
        m_step->setCurrentIndex(int(m_shown.suggested));
    }
    const StepOutlook& chosen = m_shown.step(step());
    QStringList lines{m_shown.text};
    const StepOutlook& alone = m_shown.step(UnbanStep::LiftOnly);
    if (!alone.holds && step() != UnbanStep::LiftOnly)
        lines << tr("The unban alone would not hold: %1").arg(alone.text.trimmed());
    lines << chosen.text.trimmed();
    lines.removeAll(QString());
    m_outlookLabel->setText(lines.join(QLatin1Char('\n')));
    m_outlookLabel->setVisible(!lines.isEmpty());
    // Warn-coloured when the step picked would not hold.
    QPalette palette = m_outlookLabel->palette();
    palette.setColor(QPalette::WindowText,
                     !chosen.holds ? toneColor(Tone::Warn, palette)
                                   : QApplication::palette().color(QPalette::WindowText));
    m_outlookLabel->setPalette(palette);
    fitHeight();
}

void ReasonDialog::fitHeight()
{
    // The wrapped outlook needs the height for this width, which sizeHint() does not give.
    layout()->activate();
    resize(width(), std::max(sizeHint().height(), layout()->totalHeightForWidth(width())));
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
        Ask::confirm(
            this, tr("Reset counters"),
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
    auto done = [this](Result<qint64> count, const QString& message) {
        m_busy = false;
        validate();
        if (!count) {
            m_error->setText(count.error().toString());
            Ask::warn(this,
                      m_operation == Operation::Unban ? tr("Unban failed") : tr("Reset failed"),
                      count.error().toString());
            return;
        }
        Q_EMIT applied(*count, message);
        accept();
    };
    if (m_operation == Operation::Unban)
        return submitUnban(action, reason, done);
    m_session->moderation().reset(
        m_user, action, m_session->actor(), reason, m_session,
        guarded<qint64>(this, [done](Result<qint64> count) {
            done(count,
                 count ? tr("%1 deleted.").arg(countText(*count, tr("counter"), tr("counters")))
                       : QString());
        }));
}

void ReasonDialog::submitUnban(const QByteArray& action, const QString& reason,
                               std::function<void(Result<qint64>, QString)> done)
{
    const Moderation moderation = m_session->moderation();
    switch (step()) {
    case UnbanStep::LiftOnly:
        moderation.unban(m_user, action, m_session->actor(), reason, m_session,
                         guarded<qint64>(this, [done](Result<qint64> count) {
                             done(count, count ? liftedText(*count) : QString());
                         }));
        return;
    case UnbanStep::ResetToo:
        // Two scripts, each atomic with its own audit entry; the reset only after the unban
        // succeeded, so a failure never leaves counters reset under a ban still in place.
        moderation.unban(m_user, action, m_session->actor(), reason, m_session,
                         guarded<qint64>(this, [this, action, reason, done](Result<qint64> count) {
                             if (!count)
                                 return done(count, {});
                             m_session->moderation().reset(
                                 m_user, action, m_session->actor(), reason, m_session,
                                 guarded<qint64>(this, [count, done](Result<qint64> reset) {
                                     if (!reset) {
                                         Error error = reset.error();
                                         error.message = tr("The ban was lifted, but resetting the "
                                                            "counters failed: %1")
                                                             .arg(error.message);
                                         return done(error, {});
                                     }
                                     done(count, liftedText(*count) + tr(" Counters reset."));
                                 }));
                         }));
        return;
    case UnbanStep::GiveMore:
    case UnbanStep::Exempt:
        break;
    }
    OverrideRequest request;
    request.user = m_user;
    request.action = step() == UnbanStep::GiveMore ? m_shown.moreAction : m_shown.exemptAction;
    request.actor = m_session->actor();
    request.reason = reason;
    if (step() == UnbanStep::GiveMore) {
        request.kind = OverrideKind::Limit;
        request.windows = m_shown.moreWindows;
        request.durationMs = kGiveMoreMs;
    } else {
        request.kind = OverrideKind::Unlimited;
        request.durationMs = kExemptMs;
    }
    overrideThenUnban(m_session, request, action, this, [done](Result<OverrideAndUnban> result) {
        if (!result)
            return done(result.error(), {});
        done(result->lifted,
             liftedText(result->lifted) + QLatin1Char(' ') + overrideSetText(result->stored));
    });
}

} // namespace tollgate::ui
