#include "ui/common/ReasonCheck.h"

#include <QAbstractButton>
#include <QLabel>
#include <QLineEdit>

namespace tollgate::ui {

ReasonCheck::ReasonCheck(QLineEdit* reason, QLabel* error, QAbstractButton* apply)
    : QObject(reason), m_reason(reason), m_error(error), m_apply(apply)
{
    connect(reason, &QLineEdit::textChanged, this, [this] {
        m_touched = true;
        Q_EMIT edited();
    });
}

QString ReasonCheck::reason() const
{
    return m_reason->text().trimmed();
}

QString ReasonCheck::requiredText()
{
    return tr("A reason is required");
}

void ReasonCheck::showState(const QString& problem, bool scheduledOk, bool ok, bool busy) const
{
    // An empty reason nobody has typed in yet is not an error to show in red.
    const bool untouched = !m_touched && reason().isEmpty();
    m_error->setText(ok || (untouched && scheduledOk) ? QString() : problem);
    m_apply->setEnabled(ok && !busy);
}

} // namespace tollgate::ui
