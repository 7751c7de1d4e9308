#pragma once

#include "ui/common/Session.h"

#include <QObject>
#include <QPointer>

class QWidget;

// The write-permission convention every page follows:
//
//   A widget or QAction that writes to Redis carries the dynamic property
//   "tollgateWrite" = int(Session::Write::...) (a button's objectName ends in "Button").
//   Optionally "tollgateWriteTip" = its tooltip while allowed.
//   A button whose name merely sounds like a write ("resetFilterButton") sets
//   "tollgateWrite" = false to say so.
//
// The shell disables every marked object the session may not perform, with the reason
// (Session::writeBlockedReason) as tooltip, and keeps it disabled even when the page enables
// it again (e.g. on a selection change). Pages should still ask Session::canWrite() before
// writing; the server's NOPERM is the final word.

namespace tollgate::ui::shell {

/// The name of the dynamic property above.
inline constexpr char kWriteProperty[] = "tollgateWrite";

/// Applies the convention to every marked object under `root` (widgets and QActions), now.
void applyWritePermissions(QWidget* root, Session* session);

/// Applies it under `root` continuously: on Session::permissionsChanged and stateChanged,
/// and to marked widgets when they are shown, created later or re-enabled by their page.
class WriteActions : public QObject
{
    Q_OBJECT
public:
    explicit WriteActions(QWidget* root);
    ~WriteActions() override;

    void setSession(Session* session);
    void apply();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_root;
    QPointer<Session> m_session;
    QMetaObject::Connection m_permissions;
    QMetaObject::Connection m_state;
};

} // namespace tollgate::ui::shell
