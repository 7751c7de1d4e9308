#include "ui/common/Ask.h"

#include <QMessageBox>
#include <QPushButton>

namespace tollgate::ui {

namespace {

Ask::Hook& hook()
{
    static Ask::Hook instance;
    return instance;
}

QList<Ask::Question>& history()
{
    static QList<Ask::Question> instance;
    return instance;
}

int ask(QWidget* parent, const Ask::Question& question)
{
    history().append(question);
    if (hook())
        return hook()(question);

    QMessageBox box(parent);
    box.setWindowTitle(question.title);
    box.setText(question.text);
    switch (question.kind) {
    case Ask::Kind::Confirm:
        box.setIcon(QMessageBox::Question);
        box.setStandardButtons(QMessageBox::Yes | QMessageBox::No);
        box.setDefaultButton(QMessageBox::No);
        return box.exec() == QMessageBox::Yes ? 1 : 0;
    case Ask::Kind::Choose: {
        box.setIcon(QMessageBox::Warning);
        QList<QAbstractButton*> buttons;
        for (const QString& choice : question.choices)
            buttons << box.addButton(choice, QMessageBox::ActionRole);
        box.exec();
        return static_cast<int>(buttons.indexOf(box.clickedButton()));
    }
    case Ask::Kind::Information:
        box.setIcon(QMessageBox::Information);
        box.exec();
        return 1;
    case Ask::Kind::Warning:
        box.setIcon(QMessageBox::Warning);
        box.exec();
        return 1;
    }
    return 0;
}

} // namespace

bool Ask::confirm(QWidget* parent, const QString& title, const QString& text)
{
    return ask(parent, {Kind::Confirm, title, text, {}}) == 1;
}

int Ask::choose(QWidget* parent, const QString& title, const QString& text,
                const QStringList& choices)
{
    return ask(parent, {Kind::Choose, title, text, choices});
}

void Ask::inform(QWidget* parent, const QString& title, const QString& text)
{
    ask(parent, {Kind::Information, title, text, {}});
}

void Ask::warn(QWidget* parent, const QString& title, const QString& text)
{
    ask(parent, {Kind::Warning, title, text, {}});
}

void Ask::setHook(Hook newHook)
{
    hook() = std::move(newHook);
}

const QList<Ask::Question>& Ask::asked()
{
    return history();
}

void Ask::clearAsked()
{
    history().clear();
}

} // namespace tollgate::ui
