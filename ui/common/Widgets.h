#pragma once

#include <QStringList>

class QByteArray;
class QDialog;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSize;
class QTableWidget;
class QTableWidgetItem;
class QString;
class QWidget;

namespace tollgate::ui {

/// The inline error line of forms and dialogs ("errorLabel"): plain text, wrapped, red.
QLabel* makeErrorLabel(QWidget* parent);

/// The user a dialog acts on: its id on one line, elided, so a 1,000-byte id never widens
/// the dialog (the tooltip has it all).
QLabel* makeUserLabel(const QByteArray& user, QWidget* parent);

/// The "why" of a ban, unban or reset ("reasonLineEdit"): required, at most what core accepts.
QLineEdit* makeReasonLineEdit(QWidget* parent);

/// A small table of whole rows to read, not edit (at most a few hundred rows): one row selected
/// at a time, columns sized to their contents, the last one stretched.
QTableWidget* makeReadOnlyTable(QWidget* parent, const QString& name, const QStringList& headers);
/// A cell of such a table, its whole text in the tooltip (long reasons are cut in the cell).
QTableWidgetItem* makeTextCell(const QString& text);
/// The buttons of a write dialog: the write (`applyText`, named `applyName`: the default
/// button, so Enter submits once it is enabled) and Cancel ("cancelButton", rejects `dialog`).
/// The write button goes to `*apply`; connect its clicked() to the write.
QDialogButtonBox* makeWriteButtons(QDialog* dialog, const QString& applyText,
                                   const QString& applyName, QPushButton** apply);

/// Gives a window `preferred` size, or less on a smaller screen (its parent's, its own, or the
/// primary one): a dialog's buttons must never open off-screen.
void fitToScreen(QWidget* window, const QSize& preferred);

} // namespace tollgate::ui
