#include "ui/user/WriteGuard.h"

#include <QAbstractButton>
#include <QPointer>

namespace tollgate::ui {

namespace {
constexpr const char* kWrite = "tollgateWrite";
constexpr const char* kTip = "tollgateWriteTip";
} // namespace

void markWrite(QAbstractButton* button, Session::Write write, const QString& tip)
{
    button->setProperty(kWrite, static_cast<int>(write));
    button->setProperty(kTip, tip);
    button->setToolTip(tip);
}

void applyWritePermissions(QWidget* root, const Session* session)
{
    for (QAbstractButton* button : root->findChildren<QAbstractButton*>()) {
        const QVariant write = button->property(kWrite);
        if (!write.isValid())
            continue;
        const QString reason =
            session->writeBlockedReason(static_cast<Session::Write>(write.toInt()));
        button->setEnabled(reason.isEmpty());
        button->setToolTip(reason.isEmpty() ? button->property(kTip).toString() : reason);
    }
}

void guardWrites(QWidget* root, Session* session)
{
    applyWritePermissions(root, session);
    QObject::connect(session, &Session::permissionsChanged, root,
                     [root, session] { applyWritePermissions(root, session); });
}

} // namespace tollgate::ui
