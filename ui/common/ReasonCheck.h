#pragma once

#include "tollgate/Result.h"
#include "ui/common/Session.h"

#include <QObject>

class QAbstractButton;
class QLabel;
class QLineEdit;

namespace tollgate::ui {

/// The inline check of a write dialog with a required reason (ban, unban, reset, override):
/// the problem goes to the error line, except "a reason is required" before anyone typed in
/// the field (the disabled button says enough then), and the submit button is on only while
/// the input is valid, nothing is in flight and the session allows the write: a dialog left
/// open while Redis stops answering says "Waiting for Redis" with OK off until it answers.
/// Lives as a child of the reason field.
class ReasonCheck : public QObject
{
    Q_OBJECT
public:
    /// `write`: what the submit button does, checked with the session on every show() and
    /// whenever its rights or responsiveness change (edited() is emitted then).
    ReasonCheck(QLineEdit* reason, QLabel* error, QAbstractButton* apply, Session* session,
                Session::Write write);

    /// The reason as typed, trimmed.
    QString reason() const;
    /// `scheduled` (the input without the reason) with the reason required.
    template <typename T> Result<T> require(Result<T> scheduled) const
    {
        if (scheduled && reason().isEmpty())
            return Error{ErrorKind::InvalidInput, requiredText()};
        return scheduled;
    }
    /// Shows what is wrong with `scheduled` plus the reason, and enables the button.
    template <typename T> void show(const Result<T>& scheduled, bool busy) const
    {
        const Result<T> current = require(scheduled);
        showState(current ? QString() : current.error().message, scheduled.ok(), current.ok(),
                  busy);
    }

Q_SIGNALS:
    /// The reason was edited, or the session's say changed: check again.
    void edited();

private:
    static QString requiredText();
    void showState(const QString& problem, bool scheduledOk, bool ok, bool busy) const;

    QLineEdit* m_reason;
    QLabel* m_error;
    QAbstractButton* m_apply;
    Session* m_session;
    Session::Write m_write;
    bool m_touched = false; // the reason was edited: only then is "required" an error
};

} // namespace tollgate::ui
