#include "ui/policies/UnsavedEdits.h"

#include "ui/common/Ask.h"
#include "ui/policies/PolicyEditor.h"

#include <QCloseEvent>
#include <QWidget>

namespace tollgate::ui {

UnsavedEdits::UnsavedEdits(PolicyEditor* editor, QWidget* page)
    : QObject(page), m_editor(editor), m_page(page)
{
    page->installEventFilter(this); // to find its window once it is shown in one
}

void UnsavedEdits::beforeDiscarding(const QString& instead, std::function<void()> discard)
{
    if (!m_editor->isModified()) {
        discard();
        return;
    }
    const QByteArray action = m_editor->loadedAction();
    const QString what =
        action.isEmpty()
            ? tr("The new policy has unsaved changes.")
            : tr("The policy of \"%1\" has unsaved changes.").arg(QString::fromUtf8(action));
    Ask::choose(m_page, tr("Unsaved changes"),
                what + QLatin1Char(' ') + tr("Save them, or discard them and %1?").arg(instead),
                {tr("Save"), tr("Discard"), tr("Cancel")},
                [this, discard = std::move(discard)](int answer) {
                    if (answer == 0)
                        m_editor->save(); // asks for its reason; the form stays meanwhile
                    else if (answer == 1)
                        discard();
                });
}

bool UnsavedEdits::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_page && event->type() == QEvent::Show && !m_window) {
        m_window = m_page->window();
        if (m_window != m_page)
            m_window->installEventFilter(this);
    }
    if (watched == m_window && event->type() == QEvent::Close && !m_closing &&
        m_editor->isModified()) {
        event->ignore();
        beforeDiscarding(tr("close"), [this] {
            // Closed once this close event is over: a window ignores a close inside its own.
            QMetaObject::invokeMethod(
                this,
                [this] {
                    m_closing = true;
                    m_page->window()->close();
                    m_closing = false;
                },
                Qt::QueuedConnection);
        });
        return true;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tollgate::ui
