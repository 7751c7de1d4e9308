#pragma once

#include "tollgate/Overrides.h"
#include "ui/user/DetailTable.h"

namespace tollgate::ui {

/// The user detail's overrides: scope (an action or all actions), what it gives (windows, or
/// unlimited), when it ends (counting down, or permanent), actor, reason and when it was set.
class UserOverridesTable : public DetailTable
{
    Q_OBJECT
public:
    explicit UserOverridesTable(QWidget* parent = nullptr);

    void setOverrides(std::vector<Override> overrides);
    const std::vector<Override>& overrides() const { return m_overrides; }
    /// The override of the selected row, or null.
    const Override* selected() const;
    /// Repaints the countdowns.
    void tick();

private:
    enum Column
    {
        Scope,
        What,
        Ends,
        Actor,
        Reason,
        Set,
        ColumnCount
    };

    std::vector<Override> m_overrides;
};

} // namespace tollgate::ui
