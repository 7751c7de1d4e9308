#include "ui/common/ExpiryChooser.h"

#include "core/policies/Duration.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QGridLayout>
#include <QRadioButton>

namespace tollgate::ui {

ExpiryChooser::ExpiryChooser(const QString& noun, const QStringList& durations, int picked,
                             QWidget* parent)
    : QWidget(parent), m_noun(noun)
{
    setObjectName(QStringLiteral("expiryChooser"));
    m_forDuration = new QRadioButton(tr("&For"), this);
    m_forDuration->setObjectName(QStringLiteral("durationRadioButton"));
    m_untilDate = new QRadioButton(tr("&Until"), this);
    m_untilDate->setObjectName(QStringLiteral("untilRadioButton"));
    m_permanent = new QRadioButton(tr("&Permanently"), this);
    m_permanent->setObjectName(QStringLiteral("permanentRadioButton"));
    auto* group = new QButtonGroup(this);
    group->addButton(m_forDuration);
    group->addButton(m_untilDate);
    group->addButton(m_permanent);
    m_forDuration->setChecked(true);

    m_duration = new QComboBox(this);
    m_duration->setObjectName(QStringLiteral("durationComboBox"));
    m_duration->setEditable(true);
    m_duration->addItems(durations);
    m_duration->setCurrentIndex(picked);
    m_duration->setToolTip(tr("A number with a unit: 30s, 10m, 1h30m, 1d, 2w"));

    m_until = new QDateTimeEdit(QDateTime::currentDateTime().addDays(1), this);
    m_until->setObjectName(QStringLiteral("untilDateTimeEdit"));
    m_until->setCalendarPopup(true);
    m_until->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));

    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_forDuration, 0, 0);
    layout->addWidget(m_duration, 0, 1);
    layout->addWidget(m_untilDate, 1, 0);
    layout->addWidget(m_until, 1, 1);
    layout->addWidget(m_permanent, 2, 0, 1, 2);
    layout->setColumnStretch(1, 1);

    connect(m_duration, &QComboBox::currentTextChanged, this, &ExpiryChooser::changed);
    connect(m_until, &QDateTimeEdit::dateTimeChanged, this, &ExpiryChooser::changed);
    connect(group, &QButtonGroup::buttonToggled, this, [this] {
        updateEnabled();
        Q_EMIT changed();
    });
    updateEnabled();
}

void ExpiryChooser::updateEnabled()
{
    m_duration->setEnabled(m_forDuration->isChecked());
    m_until->setEnabled(m_untilDate->isChecked());
}

Result<Expiry> ExpiryChooser::expiry() const
{
    Expiry expiry;
    if (m_forDuration->isChecked()) {
        const Result<qint64> duration = parseDuration(m_duration->currentText());
        if (!duration)
            return duration.error();
        if (*duration <= 0 || *duration > kMaxMs)
            return Error{ErrorKind::InvalidInput,
                         tr("The %1 must last between 1ms and 100 years, not %2")
                             .arg(m_noun, m_duration->currentText())};
        expiry.durationMs = *duration;
    } else if (m_untilDate->isChecked()) {
        const qint64 until = m_until->dateTime().toMSecsSinceEpoch();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (until <= now)
            return Error{ErrorKind::InvalidInput,
                         tr("The end of the %1 must be in the future").arg(m_noun)};
        if (until - now > kMaxMs)
            return Error{ErrorKind::InvalidInput,
                         tr("The end of the %1 is more than 100 years away").arg(m_noun)};
        expiry.untilMs = until;
    }
    return expiry;
}

void ExpiryChooser::setExpiry(const Expiry& expiry)
{
    if (expiry.untilMs > 0) {
        m_until->setDateTime(QDateTime::fromMSecsSinceEpoch(expiry.untilMs));
        m_untilDate->setChecked(true);
    } else if (expiry.durationMs > 0) {
        setDuration(formatDuration(expiry.durationMs));
    } else {
        m_permanent->setChecked(true);
    }
}

void ExpiryChooser::setDuration(const QString& text)
{
    m_duration->setEditText(text);
    m_forDuration->setChecked(true);
}

} // namespace tollgate::ui
