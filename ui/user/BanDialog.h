#pragma once

#include "tollgate/Moderation.h"
#include "ui/common/Session.h"

#include <QDialog>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tollgate::ui {

class ExpiryChooser;
class ReasonCheck;

/// Bans one user from one action or from all of them: for a duration (10m, 1h, 1d or typed,
/// parsed by core parseDuration), until a date, or permanently; a reason is required. The Ban
/// button stays disabled until the input is valid and the problem is shown inline. Performs
/// the ban itself (Moderation::ban, audited with Session::actor) and accepts on success.
class BanDialog : public QDialog
{
    Q_OBJECT
public:
    BanDialog(Session* session, const QByteArray& user, const QList<QByteArray>& actions,
              QWidget* parent = nullptr);
    /// The user's bans as last shown: replacing one of them (e.g. a permanent ban by a short
    /// one) asks first.
    void setExistingBans(std::vector<BanInfo> bans) { m_existing = std::move(bans); }

    /// The request the current input describes, or why it is invalid.
    Result<BanRequest> request() const;

Q_SIGNALS:
    void banned(const tollgate::BanInfo& ban);

private:
    /// request() without the reason check: scope and time only.
    Result<BanRequest> scheduled() const;
    void submit(const BanRequest& request);
    void validate();
    void apply();

    Session* m_session;
    QByteArray m_user;
    QComboBox* m_scope;
    ExpiryChooser* m_expiry;
    QLineEdit* m_reason;
    QLabel* m_error;
    QPushButton* m_apply;
    ReasonCheck* m_check;
    bool m_busy = false;
    std::vector<BanInfo> m_existing;
};

} // namespace tollgate::ui
