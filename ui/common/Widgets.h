#pragma once

class QLabel;
class QLineEdit;
class QSize;
class QWidget;

namespace tollgate::ui {

/// The inline error line of forms and dialogs ("errorLabel"): plain text, wrapped, red.
QLabel* makeErrorLabel(QWidget* parent);

/// The "why" of a ban, unban or reset ("reasonLineEdit"): required, at most what core accepts.
QLineEdit* makeReasonLineEdit(QWidget* parent);

/// Gives a window `preferred` size, or less on a smaller screen (the screen it is on, or the
/// primary one): a dialog's buttons must never open off-screen.
void fitToScreen(QWidget* window, const QSize& preferred);

} // namespace tollgate::ui
