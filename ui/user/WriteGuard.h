#pragma once

#include "ui/common/Session.h"

class QAbstractButton;
class QWidget;

namespace tollgate::ui {

/// Marks a button as performing `write`: dynamic property "tollgateWrite" (tests and the
/// shell find write buttons by it) and `tip` as its tooltip while it is allowed.
void markWrite(QAbstractButton* button, Session::Write write, const QString& tip);

/// Enables every marked button under `root` the session allows, and disables the others
/// with the reason as tooltip. Re-applied on Session::permissionsChanged.
void applyWritePermissions(QWidget* root, const Session* session);

/// Calls applyWritePermissions now and whenever the session's rights change.
void guardWrites(QWidget* root, Session* session);

} // namespace tollgate::ui
