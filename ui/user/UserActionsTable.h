#pragma once

#include "ui/user/DetailTable.h"
#include "ui/user/UserActions.h"

namespace tollgate::ui {

/// The user detail's actions: count / limit, remaining, a reset countdown from the fetched
/// deadline, the windows and the verdict of the next hit. Denied and banned actions first,
/// then those with counters, then the policies the user has not touched.
class UserActionsTable : public DetailTable
{
    Q_OBJECT
public:
    explicit UserActionsTable(QWidget* parent = nullptr);

    void setActions(const UserActions& loaded);
    /// Repaints the countdowns (no Redis round trip).
    void tick();

private:
    enum Column
    {
        Action,
        Count,
        Remaining,
        Reset,
        Windows,
        Verdict,
        ColumnCount
    };

    std::vector<UserActionRow> m_rows; // as the table shows them
};

} // namespace tollgate::ui
