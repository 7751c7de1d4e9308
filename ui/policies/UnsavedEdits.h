#pragma once

#include <QObject>
#include <functional>

class QWidget;

namespace tollgate::ui {

class PolicyEditor;

/// Keeps the policy editor's unsaved edits from being lost without a word: asks Save /
/// Discard / Cancel (Ask::choose, so tests and TOLLGATE_NO_DIALOGS answer it too) before they
/// are dropped, by a switch of policy or by closing the window `page` is in.
class UnsavedEdits : public QObject
{
    Q_OBJECT
public:
    UnsavedEdits(PolicyEditor* editor, QWidget* page);

    /// Runs `discard` at once when the form holds no unsaved edit; otherwise asks first:
    /// Discard runs it, Save starts the editor's save (the form stays), Cancel does nothing.
    void beforeDiscarding(const QString& instead, std::function<void()> discard);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    PolicyEditor* m_editor;
    QWidget* m_page;
    QObject* m_window = nullptr; // the top-level window whose close is watched
    bool m_closing = false;      // the window closes with the edits discarded
};

} // namespace tollgate::ui
