#pragma once

#include "core/redis/Result.h"

#include <QObject>

class QAbstractButton;
class QLabel;
class QLineEdit;

namespace tollgate::ui {

/// The inline check of a write dialog with a required reason (ban, unban, reset, override):
/// the problem goes to the error line, except "a reason is required" before anyone typed in
/// the field (the disabled button says enough then), and the submit button is on only while
/// the input is valid and nothing is in flight. Lives as a child of the reason field.
class ReasonCheck : public QObject
{
    Q_OBJECT
public:
    ReasonCheck(QLineEdit* reason, QLabel* error, QAbstractButton* apply);

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
    /// The reason was edited: check again.
    void edited();

private:
    static QString requiredText();
    void showState(const QString& problem, bool scheduledOk, bool ok, bool busy) const;

    QLineEdit* m_reason;
    QLabel* m_error;
    QAbstractButton* m_apply;
    bool m_touched = false; // the reason was edited: only then is "required" an error
};

} // namespace tollgate::ui
