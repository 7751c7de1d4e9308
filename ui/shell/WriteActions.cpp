#include "ui/shell/WriteActions.h"

#include <QAction>
#include <QApplication>
#include <QEvent>
#include <QWidget>

namespace tollgate::ui::shell {

namespace {

constexpr char kBlocked[] = "tollgateWriteBlocked"; // we disabled it
constexpr char kWanted[] = "tollgateWriteWanted";   // what its page asked for meanwhile
constexpr char kTip[] = "tollgateWriteTip";
constexpr char kEnforcing[] = "tollgateWriteEnforcing";
constexpr char kWatched[] = "tollgateWriteWatched";

/// Empty when allowed (or not a write at all).
QString blockedReason(const QObject* object, const Session* session)
{
    const QVariant value = object->property(kWriteProperty);
    if (!value.isValid() || !session)
        return {};
    if (value.typeId() == QMetaType::Bool) // "true" without saying which write
        return value.toBool() && session->isReadOnly()
                   ? session->writeBlockedReason(Session::Write::Ban)
                   : QString();
    bool ok = false;
    const int write = value.toInt(&ok);
    if (!ok || write < 0 || write >= Session::kWriteCount)
        return {};
    return session->writeBlockedReason(Session::Write(write));
}

bool explicitlyEnabled(QObject* object)
{
    if (auto* widget = qobject_cast<QWidget*>(object))
        return !widget->testAttribute(Qt::WA_ForceDisabled);
    if (auto* action = qobject_cast<QAction*>(object))
        return action->isEnabled();
    return true;
}

void setEnabled(QObject* object, bool enabled)
{
    object->setProperty(kEnforcing, true);
    if (auto* widget = qobject_cast<QWidget*>(object))
        widget->setEnabled(enabled);
    else if (auto* action = qobject_cast<QAction*>(object))
        action->setEnabled(enabled);
    object->setProperty(kEnforcing, false);
}

void setToolTip(QObject* object, const QString& tip)
{
    if (auto* widget = qobject_cast<QWidget*>(object))
        widget->setToolTip(tip);
    else if (auto* action = qobject_cast<QAction*>(object))
        action->setToolTip(tip);
}

QString toolTip(QObject* object)
{
    if (auto* widget = qobject_cast<QWidget*>(object))
        return widget->toolTip();
    if (auto* action = qobject_cast<QAction*>(object))
        return action->toolTip();
    return {};
}

void enforce(QObject* object, const Session* session)
{
    const QString reason = blockedReason(object, session);
    const bool wasBlocked = object->property(kBlocked).toBool();
    if (!reason.isEmpty()) {
        if (!wasBlocked) {
            object->setProperty(kWanted, explicitlyEnabled(object));
            if (!object->property(kTip).isValid())
                object->setProperty(kTip, toolTip(object));
            object->setProperty(kBlocked, true);
        }
        if (explicitlyEnabled(object))
            setEnabled(object, false);
        if (toolTip(object) != reason)
            setToolTip(object, reason);
    } else if (wasBlocked) {
        object->setProperty(kBlocked, false);
        setToolTip(object, object->property(kTip).toString());
        setEnabled(object, object->property(kWanted).toBool());
    }
}

/// The page changed the enabled state of a blocked object: remember its wish, keep it off.
void pageChangedEnabled(QObject* object, const Session* session)
{
    if (object->property(kEnforcing).toBool() || !object->property(kBlocked).toBool())
        return;
    object->setProperty(kWanted, explicitlyEnabled(object));
    enforce(object, session);
}

/// QWidget::isAncestorOf stops at window boundaries; dialogs parented to the root count too.
bool isUnder(const QObject* object, const QObject* root)
{
    for (; object; object = object->parent())
        if (object == root)
            return true;
    return false;
}

} // namespace

void applyWritePermissions(QWidget* root, Session* session)
{
    if (!root)
        return;
    QList<QObject*> objects;
    if (root->property(kWriteProperty).isValid())
        objects << root;
    for (QWidget* widget : root->findChildren<QWidget*>())
        if (widget->property(kWriteProperty).isValid())
            objects << widget;
    for (QAction* action : root->findChildren<QAction*>())
        if (action->property(kWriteProperty).isValid())
            objects << action;
    for (QObject* object : objects)
        enforce(object, session);
}

WriteActions::WriteActions(QWidget* root) : QObject(root), m_root(root)
{
    // Application-wide, so marked widgets created later (forms built after a reply, dialogs)
    // are covered the moment they are shown; the check per event is one property lookup.
    qApp->installEventFilter(this);
}

WriteActions::~WriteActions()
{
    qApp->removeEventFilter(this);
}

void WriteActions::setSession(Session* session)
{
    disconnect(m_permissions);
    disconnect(m_state);
    m_session = session;
    if (session) {
        m_permissions = connect(session, &Session::permissionsChanged, this, &WriteActions::apply);
        m_state = connect(session, &Session::stateChanged, this, &WriteActions::apply);
    }
    apply();
}

void WriteActions::apply()
{
    applyWritePermissions(m_root, m_session);
    // Actions cannot be event-filtered for their enabled state: watch their signal instead.
    for (QAction* action : m_root->findChildren<QAction*>()) {
        if (!action->property(kWriteProperty).isValid() || action->property(kWatched).toBool())
            continue;
        action->setProperty(kWatched, true);
        connect(action, &QAction::enabledChanged, this,
                [this, action] { pageChangedEnabled(action, m_session); });
    }
}

bool WriteActions::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if ((type == QEvent::Show || type == QEvent::EnabledChange || type == QEvent::Polish) &&
        watched->isWidgetType() && watched->property(kWriteProperty).isValid() &&
        isUnder(watched, m_root)) {
        if (type == QEvent::EnabledChange)
            pageChangedEnabled(watched, m_session);
        else
            enforce(watched, m_session);
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tollgate::ui::shell
