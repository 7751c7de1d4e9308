#pragma once

#include "tollgate/AuditLog.h"
#include "tollgate/HitResult.h"
#include "tollgate/Moderation.h"
#include "tollgate/Policy.h"
#include "ui/common/Session.h"
#include "ui/user/UserActions.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTimer;

namespace tollgate::ui {

class UserActionsTable;
class UserAuditTable;
class UserBansTable;
class OverridesPanel;
class UserWrongTypes;

/// Everything about one user: each action's counter / limit, remaining, reset countdown and
/// windows; the bans with reason, actor, source and expiry; the overrides (OverridesPanel:
/// Give more…, Add…, Edit…, Remove…); the user's audit history (newest first); and Ban…,
/// Unban…, Reset counters… (each audited with Session::actor). Loads
/// asynchronously: every 2 s and after every write or event of the user, the policies' keys
/// addressed through the key schema (no SCAN); on open and on Refresh also a budgeted SCAN of
/// the user's own prefix for actions without a policy.
class UserDetailDialog : public QDialog
{
    Q_OBJECT
public:
    UserDetailDialog(Session* session, const QByteArray& user, QWidget* parent = nullptr);
    ~UserDetailDialog() override;

    const QByteArray& user() const { return m_user; }

public Q_SLOTS:
    /// Reloads actions, bans and history, the SCAN of the user's prefix included (a newer
    /// reload supersedes one in flight).
    void refresh();

Q_SIGNALS:
    /// A refresh completed (all four parts arrived, successfully or not).
    void refreshed();

private:
    /// `scanKeys`: SCAN the user's prefix again (else the keys the last SCAN found are used).
    void reload(bool scanKeys);
    void loadActions(int generation, bool scanKeys);
    void loadBans(int generation);
    void loadAudit(int generation);
    void partDone(int generation);
    void showSummary();
    void showError(const QString& what, const Error& error);
    QList<QByteArray> knownActions() const;

    /// Unban is for bans: off while the user has none (and while the session forbids it).
    void updateUnban();
    void openBan();
    void openUnban();
    void openReset();
    /// After an unban of `scope` ("" = every ban): the next ban of it seen replaces "1 ban
    /// lifted." with "banned again".
    void watchLifted(const QByteArray& scope);
    void sayIfBannedAgain();

    Session* m_session;
    QByteArray m_user;
    QLabel* m_header;
    QLabel* m_summary;
    QLabel* m_message;
    QLabel* m_error;
    UserActionsTable* m_actionsTable;
    UserBansTable* m_bansTable;
    UserAuditTable* m_auditTable;
    OverridesPanel* m_overrides;
    QPushButton* m_ban;
    QPushButton* m_unban;
    QPushButton* m_reset;
    UserWrongTypes* m_wrongTypes; // a verdict failed with WRONGTYPE: which key, Repair…
    QTimer* m_ticker;

    QTimer* m_poll;

    static constexpr int kPollMs = 2000;
    int m_generation = 0;
    int m_pending = 0;
    UserActions m_loaded;
    int m_auditCount = 0;
    std::vector<AuditEntry> m_history; // newest first, as loaded
    qint64 m_loadedAt = 0;             // epoch ms of the last complete load
    bool m_everLoaded = false;
    std::optional<QByteArray> m_lifted; // the scope last unbanned, until banned again
};

} // namespace tollgate::ui
