#pragma once

#include "ui/common/Session.h"
#include "ui/user/UnbanOutlook.h"

#include <QDialog>
#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tollgate::ui {

class ReasonCheck;

/// Unban or reset counters of one user, for one action or all of them, with a required reason.
/// Reset asks for confirmation (Ask::confirm) naming exactly what it deletes. An unban offers
/// the steps that make it hold (UnbanStep: reset too, give more, exempt), says before the
/// click whether each would, and picks the first that does. Performs the writes itself
/// (Moderation, OverrideStore, audited with Session::actor) and accepts on success.
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
    /// lead to with each step, shown above the reason as the scope and the step change.
    void setOutlook(std::function<UnbanOutlook(const QByteArray& action)> outlook);

    /// The action picked ("" = every one).
    QByteArray scope() const;

Q_SIGNALS:
    /// How many bans were removed / counters deleted; `message` says it for the detail.
    void applied(qint64 count, const QString& message);

private:
    void submit(const QByteArray& action, const QString& reason);
    /// Unban: the step picked, then the unban (each script audited with `reason`).
    void submitUnban(const QByteArray& action, const QString& reason,
                     std::function<void(Result<qint64>, QString)> done);
    UnbanStep step() const;
    void validate();
    /// `keepStep`: support picked the step; otherwise the one suggested is picked.
    void showOutlook(bool keepStep);
    void fitHeight();
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
    QComboBox* m_step = nullptr;      // unban only: what makes it hold
    QLabel* m_outlookLabel = nullptr; // unban only
    std::function<UnbanOutlook(const QByteArray&)> m_outlook;
    UnbanOutlook m_shown;
    bool m_busy = false;
};

} // namespace tollgate::ui
