#include "ui/user/BanDialog.h"

#include "core/limits/Duration.h"
#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Widgets.h"
#include "ui/user/Guarded.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace tollgate::ui {

BanDialog::BanDialog(Session* session, const QByteArray& user, const QList<QByteArray>& actions,
                     QWidget* parent)
    : QDialog(parent), m_session(session), m_user(user)
{
    setObjectName(QStringLiteral("banDialog"));
    setWindowTitle(tr("Ban %1").arg(displayId(user)));

    m_scope = new QComboBox(this);
    m_scope->setObjectName(QStringLiteral("scopeComboBox"));
    m_scope->addItem(tr("All actions"), QByteArray());
    for (const QByteArray& action : actions)
        m_scope->addItem(displayId(action), action);

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
    m_duration->addItems(
        {QStringLiteral("10m"), QStringLiteral("1h"), QStringLiteral("1d"), QStringLiteral("1w")});
    m_duration->setCurrentIndex(1);
    m_duration->setToolTip(tr("A number with a unit: 30s, 10m, 1h30m, 1d, 2w"));

    m_until = new QDateTimeEdit(QDateTime::currentDateTime().addDays(1), this);
    m_until->setObjectName(QStringLiteral("untilDateTimeEdit"));
    m_until->setCalendarPopup(true);
    m_until->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));

    m_reason = makeReasonLineEdit(this);
    m_error = makeErrorLabel(this);

    auto* buttons = new QDialogButtonBox(this);
    m_apply = buttons->addButton(tr("&Ban"), QDialogButtonBox::AcceptRole);
    m_apply->setObjectName(QStringLiteral("applyBanButton"));
    m_apply->setDefault(true); // Enter submits once the input is valid
    QPushButton* cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setObjectName(QStringLiteral("cancelButton"));
    cancel->setAutoDefault(false);
    connect(m_apply, &QPushButton::clicked, this, &BanDialog::apply);
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);

    auto* durationRow = new QHBoxLayout;
    durationRow->addWidget(m_forDuration);
    durationRow->addWidget(m_duration, 1);
    auto* untilRow = new QHBoxLayout;
    untilRow->addWidget(m_untilDate);
    untilRow->addWidget(m_until, 1);
    auto* form = new QFormLayout;
    form->addRow(tr("User:"), new QLabel(displayId(user), this));
    form->addRow(tr("&Scope:"), m_scope);
    form->addRow(tr("Duration:"), durationRow);
    form->addRow(QString(), untilRow);
    form->addRow(QString(), m_permanent);
    form->addRow(tr("&Reason:"), m_reason);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    connect(m_reason, &QLineEdit::textChanged, this, [this] {
        m_touched = true;
        validate();
    });
    connect(m_duration, &QComboBox::currentTextChanged, this, &BanDialog::validate);
    connect(m_until, &QDateTimeEdit::dateTimeChanged, this, &BanDialog::validate);
    connect(group, &QButtonGroup::buttonToggled, this, &BanDialog::validate);
    validate();
    m_reason->setFocus(Qt::OtherFocusReason); // the scope and a 1h ban are the usual defaults
    resize(460, sizeHint().height());
}

Result<BanRequest> BanDialog::request() const
{
    Result<BanRequest> request = scheduled();
    if (request && request->reason.isEmpty())
        return Error{ErrorKind::InvalidInput, tr("A reason is required")};
    return request;
}

Result<BanRequest> BanDialog::scheduled() const
{
    BanRequest request;
    request.user = m_user;
    request.action = m_scope->currentData().toByteArray();
    request.actor = m_session->actor();
    request.reason = m_reason->text().trimmed();
    if (m_forDuration->isChecked()) {
        const Result<qint64> duration = parseDuration(m_duration->currentText());
        if (!duration)
            return duration.error();
        if (*duration <= 0 || *duration > kMaxBanMs)
            return Error{
                ErrorKind::InvalidInput,
                tr("A ban lasts between 1ms and 100 years, not %1").arg(m_duration->currentText())};
        request.durationMs = *duration;
    } else if (m_untilDate->isChecked()) {
        const qint64 until = m_until->dateTime().toMSecsSinceEpoch();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (until <= now)
            return Error{ErrorKind::InvalidInput, tr("The end of the ban must be in the future")};
        if (until - now > kMaxBanMs)
            return Error{ErrorKind::InvalidInput,
                         tr("The end of the ban is more than 100 years away")};
        request.untilMs = until;
    }
    return request;
}

void BanDialog::validate()
{
    m_duration->setEnabled(m_forDuration->isChecked());
    m_until->setEnabled(m_untilDate->isChecked());
    const Result<BanRequest> current = request();
    // An empty reason nobody has typed in yet is not an error to show in red.
    const bool untouched = !m_touched && m_reason->text().trimmed().isEmpty();
    m_error->setText(current || (untouched && scheduled()) ? QString() : current.error().message);
    m_apply->setEnabled(current.ok() && !m_busy);
}

void BanDialog::apply()
{
    const Result<BanRequest> current = request();
    if (!current || m_busy) {
        validate();
        return;
    }
    const BanRequest request = *current;
    for (const BanInfo& ban : m_existing) {
        if (ban.action != request.action)
            continue;
        const QString until = ban.untilMs == 0 ? tr("permanent")
                                               : tr("until %1").arg(formatTime(ban.untilMs));
        Ask::confirm(this, tr("Replace ban"),
                     tr("This scope is already banned (%1, by %2: \"%3\"). Replace that ban "
                        "with the new one?")
                         .arg(until, displayId(ban.actor.toUtf8()), displayId(ban.reason.toUtf8())),
                     [this, request] { submit(request); });
        return;
    }
    submit(request);
}

void BanDialog::submit(const BanRequest& request)
{
    if (m_busy)
        return;
    m_busy = true;
    m_apply->setEnabled(false);
    m_session->moderation().ban(request, m_session,
                                guarded<BanInfo>(this, [this](Result<BanInfo> ban) {
                                    m_busy = false;
                                    if (!ban) {
                                        m_error->setText(ban.error().toString());
                                        validate();
                                        m_error->setText(ban.error().toString());
                                        Ask::warn(this, tr("Ban failed"), ban.error().toString());
                                        return;
                                    }
                                    Q_EMIT banned(*ban);
                                    accept();
                                }));
}

} // namespace tollgate::ui
