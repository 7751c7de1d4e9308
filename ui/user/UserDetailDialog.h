#pragma once

#include "core/audit/AuditLog.h"
#include "core/limits/HitResult.h"
#include "core/limits/Moderation.h"
#include "core/limits/Policy.h"
#include "ui/common/Session.h"
#include "ui/user/UserActions.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableWidget;
class QTimer;

namespace tollgate::ui {

/// Everything about one user: each action's counter / limit, remaining, reset countdown and
/// windows; the bans with reason, actor, source and expiry; the user's audit history (newest
/// first); and Ban…, Unban…, Reset counters… (each audited with Session::actor). Loads
/// asynchronously and again after every write or relevant event.
class UserDetailDialog : public QDialog
{
    Q_OBJECT
public:
    UserDetailDialog(Session* session, const QByteArray& user, QWidget* parent = nullptr);
    ~UserDetailDialog() override;

    const QByteArray& user() const { return m_user; }

public Q_SLOTS:
    /// Reloads actions, bans and history (a newer reload supersedes one in flight).
    void refresh();

Q_SIGNALS:
    /// A refresh completed (all three parts arrived, successfully or not).
    void refreshed();

private:
    void loadActions(int generation);
    void loadBans(int generation);
    void loadAudit(int generation);
    void partDone(int generation);
    void showSummary();
    void showActions();
    void showBans();
    void showAudit(const std::vector<AuditEntry>& entries);
    void tick();
    void showError(const QString& what, const Error& error);
    QList<QByteArray> knownActions() const;

    void openBan();
    void openUnban();
    void openReset();

    Session* m_session;
    QByteArray m_user;
    QLabel* m_header;
    QLabel* m_summary;
    QLabel* m_message;
    QLabel* m_error;
    QTableWidget* m_actionsTable;
    QTableWidget* m_bansTable;
    QTableWidget* m_auditTable;
    QPushButton* m_ban;
    QPushButton* m_unban;
    QPushButton* m_reset;
    QTimer* m_ticker;

    QTimer* m_poll;

    static constexpr int kPollMs = 2000;
    int m_generation = 0;
    int m_pending = 0;
    UserActions m_loaded;
    QList<const UserActionRow*> m_order; // rows of m_loaded as the table shows them
    std::vector<BanInfo> m_bans;
    int m_auditCount = 0;
    qint64 m_loadedAt = 0; // epoch ms of the last complete load
    bool m_everLoaded = false;
};

} // namespace tollgate::ui
