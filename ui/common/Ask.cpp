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

void show(QWidget* parent, const Ask::Question& question, std::function<void(int)> answered)
{
    auto* box = new QMessageBox(parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(parent ? Qt::WindowModal : Qt::ApplicationModal);
    box->setWindowTitle(question.title);
    box->setText(question.text);
    QList<QAbstractButton*> choices;
    switch (question.kind) {
    case Ask::Kind::Confirm:
        box->setIcon(QMessageBox::Question);
        box->setStandardButtons(QMessageBox::Yes | QMessageBox::No);
        box->setDefaultButton(QMessageBox::No);
        break;
    case Ask::Kind::Choose:
        box->setIcon(QMessageBox::Warning);
        for (const QString& choice : question.choices)
            choices << box->addButton(choice, QMessageBox::ActionRole);
        break;
    case Ask::Kind::Information:
        box->setIcon(QMessageBox::Information);
        break;
    case Ask::Kind::Warning:
        box->setIcon(QMessageBox::Warning);
        break;
    }
    const Ask::Kind kind = question.kind;
    // The box is the connection's context: destroyed with its parent, it answers nothing.
    QObject::connect(box, &QMessageBox::finished, box, [box, kind, choices, answered] {
        if (!answered)
            return;
        if (kind == Ask::Kind::Confirm)
            answered(box->clickedButton() == box->button(QMessageBox::Yes) ? 1 : 0);
        else if (kind == Ask::Kind::Choose)
            answered(int(choices.indexOf(box->clickedButton())));
        else
            answered(1);
    });
    box->open();
}

void ask(QWidget* parent, const Ask::Question& question, std::function<void(int)> answered)
{
    history().append(question);
    if (hook()) {
        const int answer = hook()(question);
        if (answered)
            answered(answer);
        return;
    }
    show(parent, question, std::move(answered));
}

} // namespace

void Ask::confirm(QWidget* parent, const QString& title, const QString& text,
                  std::function<void()> onYes)
{
    ask(parent, {Kind::Confirm, title, text, {}}, [onYes = std::move(onYes)](int answer) {
        if (answer == 1 && onYes)
            onYes();
    });
}

void Ask::choose(QWidget* parent, const QString& title, const QString& text,
                 const QStringList& choices, std::function<void(int)> onChoice)
{
    ask(parent, {Kind::Choose, title, text, choices}, std::move(onChoice));
}

void Ask::inform(QWidget* parent, const QString& title, const QString& text)
{
    ask(parent, {Kind::Information, title, text, {}}, {});
}

void Ask::warn(QWidget* parent, const QString& title, const QString& text)
{
    ask(parent, {Kind::Warning, title, text, {}}, {});
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
