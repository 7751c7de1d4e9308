#pragma once

class QLabel;
class QLineEdit;
class QWidget;

namespace tollgate::ui {

/// The inline error line of forms and dialogs ("errorLabel"): plain text, wrapped, red.
QLabel* makeErrorLabel(QWidget* parent);

/// The "why" of a ban, unban or reset ("reasonLineEdit"): required, at most what core accepts.
QLineEdit* makeReasonLineEdit(QWidget* parent);

} // namespace tollgate::ui
