#include "ui/user/OverrideDialog.h"

#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/ExpiryChooser.h"
#include "ui/common/OverrideText.h"
#include "ui/common/Palette.h"
#include "ui/common/ReasonCheck.h"
#include "ui/common/Widgets.h"
#include "ui/user/Guarded.h"
#include "ui/user/OverrideThenUnban.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace tollgate::ui {

OverrideDialog::OverrideDialog(Session* session, const QByteArray& user,
                               std::vector<Policy> policies, const QByteArray& action,
                               Preset preset, QWidget* parent)
    : QDialog(parent), m_session(session), m_user(user), m_policies(std::move(policies)),
      m_factor(preset == Preset::GiveMore ? 2 : 1)
{
    setObjectName(QStringLiteral("overrideDialog"));
    setWindowTitle(preset == Preset::GiveMore ? tr("Give %1 more").arg(boundedDisplayId(user))
                                              : tr("Override for %1").arg(boundedDisplayId(user)));

    m_scope = new QComboBox(this);
    m_scope->setObjectName(QStringLiteral("scopeComboBox"));
    for (const Policy& policy : m_policies)
        m_scope->addItem(displayId(policy.action), policy.action);
    m_scope->addItem(tr("All actions"), QByteArray(Override::kEveryAction));
    m_scope->setCurrentIndex(qMax(0, m_scope->findData(action)));

    m_limit = new QRadioButton(tr("&Other limits:"), this);
    m_limit->setObjectName(QStringLiteral("limitRadioButton"));
    m_unlimited = new QRadioButton(tr("U&nlimited: never denied or banned automatically, still "
                                      "counted"),
                                   this);
    m_unlimited->setObjectName(QStringLiteral("unlimitedRadioButton"));
    auto* kind = new QButtonGroup(this);
    kind->addButton(m_limit);
    kind->addButton(m_unlimited);
    m_limit->setChecked(true);
    m_windows = new QLineEdit(this);
    m_windows->setObjectName(QStringLiteral("windowsLineEdit"));
    m_windows->setPlaceholderText(tr("window:limit pairs, e.g. 1m:200,1h:2000"));
    m_windows->setToolTip(tr("They replace the policy's windows for this user; the algorithm "
                             "and the rest of the policy stay"));
    m_policyLabel = new QLabel(this);
    m_policyLabel->setObjectName(QStringLiteral("policyLabel"));
    m_policyLabel->setWordWrap(true);

    m_banNote = new QLabel(this);
    m_banNote->setObjectName(QStringLiteral("banNoteLabel"));
    m_banNote->setWordWrap(true);
    m_banNote->setTextFormat(Qt::PlainText);
    QPalette warn = m_banNote->palette();
    warn.setColor(QPalette::WindowText, toneColor(Tone::Warn, warn));
    m_banNote->setPalette(warn);
    m_alsoUnban = new QCheckBox(this);
    m_alsoUnban->setObjectName(QStringLiteral("alsoUnbanCheckBox"));
    m_alsoUnban->setChecked(preset == Preset::GiveMore); // giving more is for getting back in
    m_banNote->hide();
    m_alsoUnban->hide();

    m_expiry = new ExpiryChooser(
        tr("override"),
        {QStringLiteral("1h"), QStringLiteral("24h"), QStringLiteral("1w"), QStringLiteral("30d")},
        1, this);
    m_reason = makeReasonLineEdit(this);
    m_error = makeErrorLabel(this);

    QDialogButtonBox* buttons =
        makeWriteButtons(this, preset == Preset::GiveMore ? tr("&Give more") : tr("&Set"),
                         QStringLiteral("applyOverrideButton"), &m_apply);
    connect(m_apply, &QPushButton::clicked, this, &OverrideDialog::apply);

    auto* windowsRow = new QHBoxLayout;
    windowsRow->addWidget(m_limit);
    windowsRow->addWidget(m_windows, 1);
    auto* form = new QFormLayout;
    form->addRow(tr("User:"), makeUserLabel(user, this));
    form->addRow(tr("&Scope:"), m_scope);
    form->addRow(QString(), m_policyLabel);
    form->addRow(tr("Gives:"), windowsRow);
    form->addRow(QString(), m_unlimited);
    form->addRow(tr("Ends:"), m_expiry);
    form->addRow(tr("&Reason:"), m_reason);
    form->addRow(QString(), m_alsoUnban);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_banNote);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    m_check = new ReasonCheck(m_reason, m_error, m_apply, session, Session::Write::Override);
    connect(m_check, &ReasonCheck::edited, this, &OverrideDialog::validate);
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_editing)
            fillWindows(m_factor);
        showPolicy();
        showBans();
        validate();
    });
    connect(m_windows, &QLineEdit::textChanged, this, &OverrideDialog::validate);
    connect(kind, &QButtonGroup::buttonToggled, this, &OverrideDialog::validate);
    connect(m_expiry, &ExpiryChooser::changed, this, &OverrideDialog::validate);
    fillWindows(m_factor);
    showPolicy();
    validate();
    m_reason->setFocus(Qt::OtherFocusReason); // the preset is the usual case: only the why is left
    resize(560, sizeHint().height());
}

void OverrideDialog::setExisting(std::vector<Override> overrides)
{
    m_existing = std::move(overrides);
}

void OverrideDialog::setBans(std::vector<BanInfo> bans)
{
    m_bans = std::move(bans);
    showBans();
}

std::optional<QByteArray> OverrideDialog::banScope() const
{
    const QByteArray action = m_scope->currentData().toByteArray();
    std::optional<QByteArray> scope;
    for (const BanInfo& ban : m_bans) {
        if (ban.action.isEmpty() || action == Override::kEveryAction)
            return QByteArray(); // the user-wide ban stays unless every ban is lifted
        if (ban.action == action)
            scope = action;
    }
    return scope;
}

void OverrideDialog::showBans()
{
    const std::optional<QByteArray> scope = banScope();
    m_banNote->setVisible(scope.has_value());
    m_alsoUnban->setVisible(scope.has_value());
    if (!scope)
        return;
    QStringList bans;
    for (const BanInfo& ban : m_bans)
        if (scope->isEmpty() || ban.action == *scope)
            bans << (ban.action.isEmpty() ? tr("every action") : displayId(ban.action)) +
                        QStringLiteral(" ") +
                        (ban.untilMs > 0 ? tr("until %1").arg(formatTime(ban.untilMs))
                                         : tr("permanently"));
    m_banNote->setText(tr("Banned (%1). An override does not lift a ban: the user stays "
                          "refused until it ends.")
                           .arg(bans.join(QStringLiteral("; "))));
    m_alsoUnban->setText(scope->isEmpty() ? tr("Also lift &every ban of this user (same reason)")
                                          : tr("Also lift the &ban (same reason)"));
    resize(width(), sizeHint().height());
}

void OverrideDialog::edit(const Override& existing)
{
    m_editing = true;
    setWindowTitle(tr("Change override for %1").arg(boundedDisplayId(m_user)));
    int index = m_scope->findData(existing.action);
    if (index < 0) { // an action whose policy is gone keeps its override until it ends
        m_scope->addItem(displayId(existing.action), existing.action);
        index = m_scope->count() - 1;
    }
    m_scope->setCurrentIndex(index);
    m_scope->setEnabled(false);
    (existing.kind == OverrideKind::Unlimited ? m_unlimited : m_limit)->setChecked(true);
    if (existing.kind == OverrideKind::Limit)
        m_windows->setText(windowsInputText(existing.windows));
    Expiry expiry;
    expiry.untilMs = existing.untilMs;
    m_expiry->setExpiry(expiry);
    showPolicy();
    validate();
}

const Policy* OverrideDialog::policyOf(const QByteArray& action) const
{
    for (const Policy& policy : m_policies)
        if (policy.action == action)
            return &policy;
    return nullptr;
}

void OverrideDialog::fillWindows(qint64 factor)
{
    const Policy* policy = policyOf(m_scope->currentData().toByteArray());
    m_windows->setText(policy ? windowsInputText(scaledWindows(policy->windows, factor))
                              : QString());
}

void OverrideDialog::showPolicy()
{
    const QByteArray action = m_scope->currentData().toByteArray();
    const Policy* policy = policyOf(action);
    if (action == Override::kEveryAction)
        m_policyLabel->setText(tr("Every action of this user, each with the windows given here "
                                  "(or none: unlimited)."));
    else if (policy)
        m_policyLabel->setText(tr("The policy gives everyone %1.").arg(policy->windowsText()));
    else
        m_policyLabel->setText(tr("This action has no policy now."));
}

Result<OverrideRequest> OverrideDialog::scheduled() const
{
    OverrideRequest request;
    request.user = m_user;
    request.action = m_scope->currentData().toByteArray();
    request.actor = m_session->actor();
    request.reason = m_check->reason();
    if (m_limit->isChecked()) {
        request.kind = OverrideKind::Limit;
        const auto windows = Policy::parseWindows(m_windows->text());
        if (!windows)
            return windows.error();
        request.windows = *windows;
    } else {
        request.kind = OverrideKind::Unlimited;
    }
    const Result<Expiry> expiry = m_expiry->expiry();
    if (!expiry)
        return expiry.error();
    request.durationMs = expiry->durationMs;
    request.untilMs = expiry->untilMs;
    request.permanent = expiry->permanent();
    if (request.reason.isEmpty())
        request.reason = QStringLiteral("-"); // checked by request(); the rest is core's say
    const Status valid = request.validate();
    if (!valid)
        return valid.error();
    request.reason = m_check->reason();
    return request;
}

Result<OverrideRequest> OverrideDialog::request() const
{
    return m_check->require(scheduled());
}

void OverrideDialog::validate()
{
    m_windows->setEnabled(m_limit->isChecked());
    m_check->show(scheduled(), m_busy);
}

void OverrideDialog::apply()
{
    const Result<OverrideRequest> current = request();
    if (!current || m_busy) {
        validate();
        return;
    }
    const OverrideRequest request = *current;
    for (const Override& existing : m_existing) {
        if (m_editing || existing.action != request.action)
            continue;
        Ask::confirm(
            this, tr("Replace override"),
            tr("This user already has an override for %1 (%2, %3, by %4: \"%5\"). "
               "Replace it with the new one?")
                .arg(overrideScopeText(existing.action),
                     overrideWhatText(existing.kind, existing.windows),
                     existing.isPermanent() ? tr("permanent")
                                            : tr("until %1").arg(formatTime(existing.untilMs)),
                     displayId(existing.actor.toUtf8()), displayId(existing.reason.toUtf8())),
            [this, request] { submit(request); });
        return;
    }
    submit(request);
}

void OverrideDialog::submit(const OverrideRequest& request)
{
    if (m_busy)
        return;
    m_busy = true;
    m_apply->setEnabled(false);
    auto done = [this](Result<OverrideAndUnban> result) {
        m_busy = false;
        if (!result) {
            validate();
            m_error->setText(result.error().toString());
            Ask::warn(this, tr("Setting the override failed"), result.error().toString());
            return;
        }
        Q_EMIT applied(result->stored, result->lifted);
        accept();
    };
    const std::optional<QByteArray> scope = banScope();
    if (scope && m_alsoUnban->isChecked())
        return overrideThenUnban(m_session, request, *scope, this, done);
    m_session->overrides().set(request, m_session,
                               guarded<Override>(this, [done](Result<Override> stored) {
                                   if (!stored)
                                       return done(stored.error());
                                   done(OverrideAndUnban{*stored, 0});
                               }));
}

} // namespace tollgate::ui
