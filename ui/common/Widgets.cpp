#include "ui/common/Widgets.h"

#include "ui/common/Palette.h"

#include <QLabel>
#include <QLineEdit>

namespace tollgate::ui {

QLabel* makeErrorLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setObjectName(QStringLiteral("errorLabel"));
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, toneColor(Tone::Denied, palette));
    label->setPalette(palette);
    return label;
}

QLineEdit* makeReasonLineEdit(QWidget* parent)
{
    auto* edit = new QLineEdit(parent);
    edit->setObjectName(QStringLiteral("reasonLineEdit"));
    edit->setPlaceholderText(QLineEdit::tr("Why (required; recorded in the audit log)"));
    edit->setMaxLength(2000); // core::Moderation's limit
    return edit;
}

} // namespace tollgate::ui
