#pragma once

#include <Qt>

namespace tollgate::ui {

/// What a table row is about, answered on every column so the shell's right-click menu can
/// offer "Open user" and "Open key" on any table (ui/shell/TableActions.h) without knowing
/// its model. Far above Qt::UserRole: models keep their own roles below.
enum RowRole
{
    RowUserRole = Qt::UserRole + 0x100, // the user id's raw bytes (QByteArray), or nothing
    RowKeyRole,                         // a Redis key's raw bytes (QByteArray), or nothing
};

} // namespace tollgate::ui
