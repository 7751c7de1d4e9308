#pragma once

#include "tollgate/Moderation.h"
#include "ui/user/DetailTable.h"

namespace tollgate::ui {

/// The user detail's bans: scope, reason, actor, source, when each ends (counting down) and
/// when it started.
class UserBansTable : public DetailTable
{
    Q_OBJECT
public:
    explicit UserBansTable(QWidget* parent = nullptr);

    void setBans(std::vector<BanInfo> bans);
    const std::vector<BanInfo>& bans() const { return m_bans; }
    /// Repaints the countdowns.
    void tick();

private:
    enum Column
    {
        Scope,
        Reason,
        Actor,
        Source,
        Expires,
        Started,
        ColumnCount
    };

    std::vector<BanInfo> m_bans;
};

} // namespace tollgate::ui
