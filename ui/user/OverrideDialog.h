#pragma once

#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "ui/common/Session.h"

#include <QDialog>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace tollgate::ui {

class ExpiryChooser;
class ReasonCheck;

/// Sets (adds or changes) one override of one user: the scope (an action, or every action),
/// other windows or unlimited (an exemption), when it ends, and a required reason. "Give
/// more" opens it ready for support's usual case: twice the policy's limits for 24 hours, on
/// the action asked for, so only the reason is left to type. Performs the write itself
/// (OverrideStore::set, audited with Session::actor) and accepts on success.
class OverrideDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Preset
    {
        Add,      // the policy's windows, for 24 hours: change what is needed
        GiveMore, // twice the policy's limits, for 24 hours
        Edit      // the override given to setOverride()
    };

    /// `policies`: the actions offered (besides every action); `action`: the one picked.
    OverrideDialog(Session* session, const QByteArray& user, std::vector<Policy> policies,
                   const QByteArray& action, Preset preset, QWidget* parent = nullptr);
    /// The user's overrides as last shown: replacing one asks first; Edit starts from one.
    void setExisting(std::vector<Override> overrides);
    /// The user's bans as last shown: an override does not lift a ban, so for a scope under
    /// one the dialog says the ban stays and offers to lift it too (checked for Give more).
    void setBans(std::vector<BanInfo> bans);
    /// Fills the form from `existing` (its scope stays fixed).
    void edit(const Override& existing);

    /// The request the current input describes, or why it is invalid.
    Result<OverrideRequest> request() const;

Q_SIGNALS:
    /// `bansLifted`: bans lifted after it (Also lift the ban), 0 when not asked.
    void applied(const tollgate::Override& stored, qint64 bansLifted);

private:
    /// request() without the reason check.
    Result<OverrideRequest> scheduled() const;
    const Policy* policyOf(const QByteArray& action) const;
    void fillWindows(qint64 factor);
    void showPolicy();
    /// The ban note and "Also lift": shown while a ban covers the scope.
    void showBans();
    /// What "Also lift" unbans: the scope's action, or "" (every ban) when a user-wide ban
    /// or the every-action scope is involved; nullopt when no ban covers the scope.
    std::optional<QByteArray> banScope() const;
    void validate();
    void apply();
    void submit(const OverrideRequest& request);

    Session* m_session;
    QByteArray m_user;
    std::vector<Policy> m_policies;
    std::vector<Override> m_existing;
    qint64 m_factor;
    QComboBox* m_scope;
    QRadioButton* m_limit;
    QRadioButton* m_unlimited;
    QLineEdit* m_windows;
    QLabel* m_policyLabel;
    QLabel* m_banNote;
    QCheckBox* m_alsoUnban;
    std::vector<BanInfo> m_bans;
    ExpiryChooser* m_expiry;
    QLineEdit* m_reason;
    QLabel* m_error;
    QPushButton* m_apply;
    ReasonCheck* m_check;
    bool m_busy = false;
    bool m_editing = false;
};

} // namespace tollgate::ui
