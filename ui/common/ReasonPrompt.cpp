#include "ui/common/ReasonPrompt.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tollgate::ui {

ReasonPrompt::ReasonPrompt(QWidget* parent, const QString& title, const QString& text,
                           const QString& okText)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("reasonPromptDialog"));
    setWindowTitle(title);
    setWindowModality(Qt::WindowModal);
    setAttribute(Qt::WA_DeleteOnClose);

    auto* label = new QLabel(text, this);
    label->setObjectName(QStringLiteral("reasonPromptLabel"));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason = new QLineEdit(this);
    m_reason->setObjectName(QStringLiteral("reasonLineEdit"));
    m_reason->setPlaceholderText(tr("Reason (required, recorded in the audit trail)"));
    m_reason->setMaxLength(kMaxReasonLength);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton* ok = m_buttons->button(QDialogButtonBox::Ok);
    ok->setObjectName(QStringLiteral("reasonOkButton"));
    ok->setText(okText);
    ok->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(m_reason);
    layout->addWidget(m_buttons);

    connect(m_reason, &QLineEdit::textChanged, this,
            [ok](const QString& reason) { ok->setEnabled(!reason.trimmed().isEmpty()); });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ReasonPrompt::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_reason->setFocus();
}

ReasonPrompt* ReasonPrompt::ask(QWidget* parent, const QString& title, const QString& text,
                                const QString& okText, std::function<void(const QString&)> onReason)
{
    auto* prompt = new ReasonPrompt(parent, title, text, okText);
    prompt->m_onReason = std::move(onReason);
    prompt->open();
    return prompt;
}

void ReasonPrompt::submit()
{
    const QString reason = m_reason->text().trimmed();
    if (reason.isEmpty())
        return; // Enter on an empty field: the reason is not optional
    auto onReason = std::move(m_onReason);
    m_onReason = nullptr;
    accept();
    if (onReason)
        onReason(reason);
}

} // namespace tollgate::ui
