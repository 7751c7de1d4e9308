#pragma once

#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "ui/common/Session.h"

#include <QWidget>
#include <functional>

class QPushButton;

namespace tollgate::ui {

class UserOverridesTable;

/// The Overrides section of the user detail: the user's overrides (UserOverridesTable) and
/// Give more… (twice the limit for 24 hours, on the action support is looking at), Add…,
/// Edit… (also a double-click) and Remove… (asks for a reason). Each write is audited with
/// Session::actor; `written` tells the detail to reload.
class OverridesPanel : public QWidget
{
    Q_OBJECT
public:
    OverridesPanel(Session* session, const QByteArray& user, QWidget* parent = nullptr);

    /// The actions offered (every policy) and which one "Give more" picks unless told.
    void setPolicies(std::vector<Policy> policies);
    /// The user's bans, for Give more… and Add… to say a ban stays (and offer to lift it).
    void setBans(std::vector<BanInfo> bans) { m_bans = std::move(bans); }
    /// The action support is looking at (the actions table's current row), asked when Give
    /// more… opens; empty = the first policy.
    void setActionHint(std::function<QByteArray()> hint) { m_actionHint = std::move(hint); }
    /// Reads the user's overrides (one HGETALL) and shows them; `done` gets the error, if any
    /// (the rows shown before stay then), and does not run once the panel is gone.
    void load(std::function<void(std::optional<Error>)> done);
    const std::vector<Override>& overrides() const;
    /// The session's rights, then what needs a selection or a policy.
    void updateButtons();
    /// Repaints the countdowns.
    void tick();

public Q_SLOTS:
    void giveMore();
    void add();
    void editSelected();
    void removeSelected();

Q_SIGNALS:
    /// An override was set or removed; `message` says what, for the detail's message line.
    void written(const QString& message);
    /// A write the server refused, or a read that failed.
    void failed(const QString& what, const tollgate::Error& error);

private:
    void openDialog(int preset, const QByteArray& action, const Override* existing);

    Session* m_session;
    QByteArray m_user;
    std::vector<Policy> m_policies;
    std::vector<BanInfo> m_bans;
    std::function<QByteArray()> m_actionHint;
    UserOverridesTable* m_table;
    QPushButton* m_giveMore;
    QPushButton* m_add;
    QPushButton* m_edit;
    QPushButton* m_remove;
};

} // namespace tollgate::ui
