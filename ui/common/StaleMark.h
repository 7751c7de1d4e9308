#pragma once

#include <QList>

class QWidget;

namespace tollgate::ui {

class Session;

/// Greys `widgets` (and what they hold) while the session's Redis is not responding, so the
/// last values are not read as live ones, and sets their "stale" property (tests, style
/// sheets). Only a few palette roles change: Qt repaints what is on screen, whatever the number
/// of rows behind a table. The widgets must not carry a palette of their own.
void markStaleWhileUnresponsive(Session* session, const QList<QWidget*>& widgets);

} // namespace tollgate::ui
