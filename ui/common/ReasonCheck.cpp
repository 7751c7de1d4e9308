#include "ui/common/ReasonCheck.h"

#include <QAbstractButton>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>

namespace tollgate::ui {

ReasonCheck::ReasonCheck(QLineEdit* reason, QLabel* error, QAbstractButton* apply, Session* session,
                         Session::Write write)
    : QObject(reason), m_reason(reason), m_error(error), m_apply(apply), m_session(session),
      m_write(write)
{
    connect(reason, &QLineEdit::textChanged, this, [this] {
        m_touched = true;
        Q_EMIT edited();
    });
    // Sent after every change of responsiveness too (a stall, and its end).
    connect(session, &Session::permissionsChanged, this, &ReasonCheck::edited);
    connect(session, &Session::stateChanged, this, &ReasonCheck::edited);
}

QString ReasonCheck::reason() const
{
    return m_reason->text().trimmed();
}

QString ReasonCheck::requiredText()
{
    return tr("A reason is required");
}

void ReasonCheck::showState(const QString& problem, bool scheduledOk, bool ok, bool busy) const
{
    // Redis stalled or gone: nothing can be written, whatever is typed; said first.
    if (const QString blocked = m_session->writeBlockedReason(m_write); !blocked.isEmpty()) {
        if (m_session->state() == ConnectionState::Connected && !m_session->isResponsive())
            m_error->setText(tr("Waiting for Redis (not responding since %1)")
                                 .arg(QLocale().toString(m_session->unresponsiveSince().time(),
                                                         QStringLiteral("HH:mm:ss"))));
        else if (m_session->state() != ConnectionState::Connected)
            m_error->setText(tr("Waiting for Redis (not connected)"));
        else
            m_error->setText(blocked);
        m_apply->setEnabled(false);
        return;
    }
    // An empty reason nobody has typed in yet is not an error to show in red.
    const bool untouched = !m_touched && reason().isEmpty();
    m_error->setText(ok || (untouched && scheduledOk) ? QString() : problem);
    m_apply->setEnabled(ok && !busy);
}

} // namespace tollgate::ui
