#pragma once

#include "ui/common/Session.h"

#include <QDialog>
#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tollgate::ui {

class ReasonCheck;

/// Unban or reset counters of one user, for one action or all of them, with a required reason.
/// Reset asks for confirmation (Ask::confirm) naming exactly what it deletes. Performs the
/// write itself (Moderation, audited with Session::actor) and accepts on success.
class ReasonDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Operation
    {
        Unban,
        Reset
    };

    /// `scopes`: the actions offered besides "all" (the user's bans, or the user's actions).
    ReasonDialog(Session* session, Operation operation, const QByteArray& user,
                 const QList<QByteArray>& scopes, QWidget* parent = nullptr);

    /// Unban only: what lifting the bans of a scope (an action, or "" for every ban) would
    /// lead to, shown above the reason as the scope changes; when it would not hold (text and
    /// `wouldNotHold` from unbanOutlook), resetting the counters too is checked.
    void setOutlook(std::function<std::pair<QString, bool>(const QByteArray& action)> outlook);

Q_SIGNALS:
    /// How many bans were removed / counters deleted.
    void applied(qint64 count);

private:
    void submit(const QByteArray& action, const QString& reason);
    void validate();
    void showOutlook();
    void apply();
    QString describe(const QByteArray& action) const;

    Session* m_session;
    Operation m_operation;
    QByteArray m_user;
    QComboBox* m_scope;
    QLineEdit* m_reason;
    QLabel* m_error;
    QPushButton* m_apply;
    ReasonCheck* m_check;
    QCheckBox* m_alsoReset = nullptr; // unban only
    QLabel* m_outlookLabel = nullptr; // unban only
    std::function<std::pair<QString, bool>(const QByteArray&)> m_outlook;
    bool m_busy = false;
};

} // namespace tollgate::ui
