#pragma once

#include <QString>
#include <QStringList>
#include <functional>

class QWidget;

namespace tollgate::ui {

/// Every modal question and message of the console goes through here, so GUI tests can
/// answer them without a real modal loop (see setHook).
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

    /// Yes/No; a destructive action names what it destroys in `text`.
    static bool confirm(QWidget* parent, const QString& title, const QString& text);
    /// Index of the chosen button, or -1 when dismissed.
    static int choose(QWidget* parent, const QString& title, const QString& text,
                      const QStringList& choices);
    static void inform(QWidget* parent, const QString& title, const QString& text);
    static void warn(QWidget* parent, const QString& title, const QString& text);

    /// Tests install a hook that answers instead of showing a dialog; pass {} to remove.
    static void setHook(Hook hook);
    /// The questions asked since the last clear (recorded even without a hook).
    static const QList<Question>& asked();
    static void clearAsked();
};

} // namespace tollgate::ui
