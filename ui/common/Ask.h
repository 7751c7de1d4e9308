#pragma once

#include <QString>
#include <QStringList>
#include <functional>

class QWidget;

namespace tollgate::ui {

/// Every question and message of the console goes through here. Nothing blocks: the box is
/// opened window-modal with open() (no nested event loop) and the answer arrives through the
/// callback, which is dropped if `parent` is destroyed first. GUI tests answer through a hook
/// instead of a dialog (see setHook); the callback then runs at once.
class Ask
{
public:
    enum class Kind { Confirm, Choose, Information, Warning };

    struct Question
    {
        Kind kind;
        QString title;
        QString text;
        QStringList choices; // Choose only
    };
    /// Returns the answer: for Confirm 1 = yes / 0 = no; for Choose the index or -1.
    using Hook = std::function<int(const Question&)>;

    /// Yes/No; `onYes` runs only on yes. A destructive action names what it destroys in `text`.
    static void confirm(QWidget* parent, const QString& title, const QString& text,
                        std::function<void()> onYes);
    /// `onChoice` gets the index of the chosen button, or -1 when dismissed.
    static void choose(QWidget* parent, const QString& title, const QString& text,
                       const QStringList& choices, std::function<void(int)> onChoice);
    static void inform(QWidget* parent, const QString& title, const QString& text);
    static void warn(QWidget* parent, const QString& title, const QString& text);

    /// Tests install a hook that answers instead of showing a dialog; pass {} to remove.
    static void setHook(Hook hook);
    /// The questions asked since the last clear (recorded even without a hook).
    static const QList<Question>& asked();
    static void clearAsked();
};

} // namespace tollgate::ui
