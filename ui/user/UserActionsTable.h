#pragma once

#include "tollgate/Overrides.h"
#include "ui/user/DetailTable.h"
#include "ui/user/UserActions.h"

namespace tollgate::ui {

/// The user detail's actions: count / limit, remaining, a reset countdown from the fetched
/// deadline, the windows (the override's where one applies) and the verdict of the next hit.
/// Denied and banned actions first, then those with counters, then the policies the user has
/// not touched.
class UserActionsTable : public DetailTable
{
    Q_OBJECT
public:
    explicit UserActionsTable(QWidget* parent = nullptr);

    /// `overrides`: the user's, to name the windows that apply instead of the policy's.
    void setActions(const UserActions& loaded, const std::vector<Override>& overrides);
    /// The action of the current row (support's focus), else of the first row, else empty.
    QByteArray currentAction() const;
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
