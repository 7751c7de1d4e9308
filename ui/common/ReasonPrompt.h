#pragma once

#include <QDialog>
#include <functional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace tollgate::ui {

/// Asks for the reason a write needs (the audit trail is for people), for writes without a
/// dialog of their own: deleting keys, repairing TTLs. Window-modal, opened with open() (no
/// nested event loop); the text names what will happen; OK stays disabled until a reason is
/// typed. `onReason` gets the trimmed reason on OK and is dropped if `parent` goes first.
/// Tests find it as the parent's child "reasonPromptDialog".
class ReasonPrompt : public QDialog
{
    Q_OBJECT
public:
    static constexpr int kMaxReasonLength = 2000;

    static ReasonPrompt* ask(QWidget* parent, const QString& title, const QString& text,
                             const QString& okText, std::function<void(const QString&)> onReason);

    QLineEdit* reasonEdit() const { return m_reason; }
    /// Clicks OK (for tests and keyboard users alike: Enter does the same).
    void submit();

private:
    ReasonPrompt(QWidget* parent, const QString& title, const QString& text, const QString& okText);

    QLineEdit* m_reason;
    QDialogButtonBox* m_buttons;
    std::function<void(const QString&)> m_onReason;
};

} // namespace tollgate::ui
