#include "ui/user/OverridesPanel.h"

#include "ui/common/DisplayText.h"
#include "ui/common/OverrideText.h"
#include "ui/common/ReasonPrompt.h"
#include "ui/user/Guarded.h"
#include "ui/user/OverrideDialog.h"
#include "ui/user/OverrideThenUnban.h"
#include "ui/user/UserOverridesTable.h"
#include "ui/user/WriteGuard.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QPushButton>

namespace tollgate::ui {

OverridesPanel::OverridesPanel(Session* session, const QByteArray& user, QWidget* parent)
    : QWidget(parent), m_session(session), m_user(user)
{
    setObjectName(QStringLiteral("overridesPanel"));
    m_table = new UserOverridesTable(this);
    m_giveMore = new QPushButton(tr("&Give more…"), this);
    m_giveMore->setObjectName(QStringLiteral("giveMoreButton"));
    markWrite(m_giveMore, Session::Write::Override,
              tr("Twice the policy's limits for 24 hours, on the action selected above"));
    m_add = new QPushButton(tr("&Add…"), this);
    m_add->setObjectName(QStringLiteral("addOverrideButton"));
    markWrite(m_add, Session::Write::Override,
              tr("Other limits, or none, for this user on one action or all of them"));
    m_edit = new QPushButton(tr("&Edit…"), this);
    m_edit->setObjectName(QStringLiteral("editOverrideButton"));
    markWrite(m_edit, Session::Write::Override, tr("Change the selected override"));
    m_remove = new QPushButton(tr("Re&move…"), this);
    m_remove->setObjectName(QStringLiteral("removeOverrideButton"));
    markWrite(m_remove, Session::Write::Override,
              tr("End the selected override now: the user falls back to the policy"));

    connect(m_giveMore, &QPushButton::clicked, this, &OverridesPanel::giveMore);
    connect(m_add, &QPushButton::clicked, this, &OverridesPanel::add);
    connect(m_edit, &QPushButton::clicked, this, &OverridesPanel::editSelected);
    connect(m_remove, &QPushButton::clicked, this, &OverridesPanel::removeSelected);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this] {
        if (m_edit->isEnabled())
            editSelected();
    });

    // Two by two beside the table: the section stays as low as two rows of buttons.
    auto* buttons = new QGridLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_giveMore, 0, 0);
    buttons->addWidget(m_add, 0, 1);
    buttons->addWidget(m_edit, 1, 0);
    buttons->addWidget(m_remove, 1, 1);
    buttons->setRowStretch(2, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);
    updateButtons();
}

void OverridesPanel::setPolicies(std::vector<Policy> policies)
{
    m_policies = std::move(policies);
    updateButtons();
}

const std::vector<Override>& OverridesPanel::overrides() const
{
    return m_table->overrides();
}

void OverridesPanel::load(std::function<void(std::optional<Error>)> done)
{
    m_session->overrides().ofUser(
        m_user, m_session,
        guarded<std::vector<Override>>(this, [this, done](Result<std::vector<Override>> read) {
            if (!read) { // keep what was shown: an error is no proof the overrides are gone
                done(read.error());
                return;
            }
            m_table->setOverrides(std::move(*read));
            if (!m_table->selected() && m_table->rowCount() > 0)
                m_table->selectRow(0); // Edit… and Remove… always have something to act on
            updateButtons();
            done(std::nullopt);
        }));
}

void OverridesPanel::updateButtons()
{
    applyWritePermissions(this, m_session); // the session's say first
    if (m_giveMore->isEnabled() && m_policies.empty()) {
        m_giveMore->setEnabled(false);
        m_giveMore->setToolTip(tr("There is no policy to give more of"));
    }
    for (QPushButton* button : {m_edit, m_remove}) {
        if (button->isEnabled() && m_table->overrides().empty()) {
            button->setEnabled(false);
            button->setToolTip(tr("This user has no override"));
        }
    }
}

void OverridesPanel::tick()
{
    m_table->tick();
}

void OverridesPanel::giveMore()
{
    QByteArray action = m_actionHint ? m_actionHint() : QByteArray();
    const bool hasPolicy = std::any_of(m_policies.begin(), m_policies.end(),
                                       [&](const Policy& p) { return p.action == action; });
    if (!hasPolicy && !m_policies.empty())
        action = m_policies.front().action;
    openDialog(int(OverrideDialog::Preset::GiveMore), action, nullptr);
}

void OverridesPanel::add()
{
    const QByteArray action = m_actionHint ? m_actionHint() : QByteArray();
    openDialog(int(OverrideDialog::Preset::Add), action, nullptr);
}

void OverridesPanel::editSelected()
{
    if (const Override* selected = m_table->selected())
        openDialog(int(OverrideDialog::Preset::Edit), selected->action, selected);
}

void OverridesPanel::openDialog(int preset, const QByteArray& action, const Override* existing)
{
    auto* dialog = new OverrideDialog(m_session, m_user, m_policies, action,
                                      OverrideDialog::Preset(preset), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setExisting(m_table->overrides());
    if (existing)
        dialog->edit(*existing);
    dialog->setBans(m_bans);
    connect(dialog, &OverrideDialog::applied, this, [this](const Override& stored, qint64 lifted) {
        Q_EMIT written(overrideSetText(stored) +
                       (lifted > 0 ? QLatin1Char(' ') + liftedText(lifted) : QString()));
    });
    dialog->open(); // window-modal without a nested event loop
}

void OverridesPanel::removeSelected()
{
    const Override* selected = m_table->selected();
    if (!selected)
        return;
    const QByteArray action = selected->action;
    const QString scope = overrideScopeText(action);
    ReasonPrompt::ask(
        this, tr("Remove override"),
        tr("Remove the override of %1 for %2 (%3)? The user falls back to the policy at once.")
            .arg(boundedDisplayId(m_user), scope,
                 overrideWhatText(selected->kind, selected->windows)),
        tr("Remove"), [this, action, scope](const QString& reason) {
            m_session->overrides().remove(
                m_user, action, m_session->actor(), reason, m_session,
                guarded<bool>(this, [this, scope](Result<bool> removed) {
                    if (!removed) {
                        Q_EMIT failed(tr("Removing the override failed"), removed.error());
                        return;
                    }
                    Q_EMIT written(*removed
                                       ? tr("Override for %1 removed.").arg(scope)
                                       : tr("The override for %1 had already ended.").arg(scope));
                }));
        });
}

} // namespace tollgate::ui
