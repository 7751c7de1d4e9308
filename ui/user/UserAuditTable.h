#pragma once

#include "tollgate/AuditLog.h"
#include "ui/user/DetailTable.h"

namespace tollgate::ui {

/// The user's audit history, newest first, worded like the global Audit log page.
class UserAuditTable : public DetailTable
{
    Q_OBJECT
public:
    explicit UserAuditTable(QWidget* parent = nullptr);

    void setEntries(const std::vector<AuditEntry>& entries);

private:
    enum Column
    {
        Time,
        Event,
        Action,
        Actor,
        Reason,
        Until,
        ColumnCount
    };
};

} // namespace tollgate::ui
