#pragma once

#include "ui/common/ReasonPrompt.h"

#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QtTest>

namespace tollgate::test {

// The reason prompt `parent` has open (a closed one may linger until deleteLater runs), or null.
inline ui::ReasonPrompt* openReasonPrompt(QWidget* parent)
{
    const auto prompts =
        parent->findChildren<ui::ReasonPrompt*>(QStringLiteral("reasonPromptDialog"));
    for (ui::ReasonPrompt* prompt : prompts)
        if (prompt->isVisible())
            return prompt;
    return nullptr;
}

// Types `reason` into the open prompt and submits it; an empty reason cancels instead.
// Returns the text the prompt showed, so the test can check what it named.
inline QString answerReasonPrompt(QWidget* parent, const QString& reason)
{
    ui::ReasonPrompt* prompt = openReasonPrompt(parent);
    if (!prompt)
        return {};
    const QString text = prompt->findChild<QLabel*>(QStringLiteral("reasonPromptLabel"))->text();
    if (reason.isEmpty()) {
        prompt->reject();
    } else {
        QTest::keyClicks(prompt->reasonEdit(), reason);
        prompt->submit();
    }
    return text;
}

// While it lives, answers every reason prompt that opens under `parent` with `reason`: for
// tests of what follows the prompt (the policy editor asks for one on every save).
class AutoAnswerReasonPrompts : public QObject
{
public:
    AutoAnswerReasonPrompts(QWidget* parent, QString reason)
        : QObject(parent), m_parent(parent), m_reason(std::move(reason))
    {
        m_poll.setInterval(20);
        connect(&m_poll, &QTimer::timeout, this,
                [this] { answerReasonPrompt(m_parent, m_reason); });
        m_poll.start();
    }

private:
    QWidget* m_parent;
    QString m_reason;
    QTimer m_poll;
};

} // namespace tollgate::test
