#include "ui/common/Widgets.h"

#include "ui/common/DisplayText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Palette.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QTableWidget>

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

QTableWidget* makeReadOnlyTable(QWidget* parent, const QString& name, const QStringList& headers)
{
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

QTableWidgetItem* makeTextCell(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setToolTip(text);
    return item;
}

QDialogButtonBox* makeWriteButtons(QDialog* dialog, const QString& applyText,
                                   const QString& applyName, QPushButton** apply)
{
    auto* buttons = new QDialogButtonBox(dialog);
    *apply = buttons->addButton(applyText, QDialogButtonBox::AcceptRole);
    (*apply)->setObjectName(applyName);
    (*apply)->setDefault(true); // Enter submits once the input is valid
    QPushButton* cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setObjectName(QStringLiteral("cancelButton"));
    cancel->setAutoDefault(false);
    QObject::connect(cancel, &QPushButton::clicked, dialog, &QDialog::reject);
    return buttons;
}

QLabel* makeUserLabel(const QByteArray& user, QWidget* parent)
{
    auto* label = new ElidedLabel(parent);
    label->setObjectName(QStringLiteral("userLabel"));
    label->setText(boundedDisplayId(user));
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

void fitToScreen(QWidget* window, const QSize& preferred)
{
    // A dialog opens over its parent, so on the parent's screen (before it is shown, its own
    // screen is a guess from its default position).
    const QWidget* over = window->parentWidget() ? window->parentWidget() : window;
    const QScreen* screen = over->screen() ? over->screen() : QGuiApplication::primaryScreen();
    QSize size = preferred;
    // Room for the title bar and the frame the window manager adds. Where to put it is the
    // window manager's (QDialog centres on its parent and keeps within the screen).
    if (screen)
        size = size.boundedTo(screen->availableGeometry().size() - QSize(16, 48));
    window->resize(size);
}

} // namespace tollgate::ui
