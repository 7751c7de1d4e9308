#pragma once

#include "ui/user/WrongTypeKeys.h"

#include <QWidget>
#include <functional>
#include <vector>

namespace tollgate::ui {

/// Deletes keys of the wrong type the way every write is made: a ReasonPrompt that names each
/// key and what it breaks, then KeyDeletion (a ban through unban.lua, a counter through
/// reset.lua, anything else through delete.lua), each audited with the session's actor and the
/// reason. The user detail's Repair… and the Keys page's no-TTL finder both ask through here.
/// `done` gets the keys deleted (or why not) on the GUI thread, and is dropped if `parent`
/// goes first; it is not called when the prompt is cancelled.
void deleteWrongTypeKeys(QWidget* parent, Session* session, const std::vector<WrongTypeKey>& keys,
                         std::function<void(Result<QList<QByteArray>> deleted)> done);

} // namespace tollgate::ui
