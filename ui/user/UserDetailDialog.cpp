#include "ui/user/UserDetailDialog.h"

#include "ui/common/DisplayText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/StaleMark.h"
#include "ui/common/Widgets.h"
#include "ui/user/BanDialog.h"
#include "ui/user/Guarded.h"
#include "ui/user/OverridesPanel.h"
#include "ui/user/ReasonDialog.h"
#include "ui/user/UnbanOutlook.h"
#include "ui/user/UserActions.h"
#include "ui/user/UserActionsTable.h"
#include "ui/user/UserAuditTable.h"
#include "ui/user/UserBansTable.h"
#include "ui/user/UserWrongTypes.h"
#include "ui/user/WriteGuard.h"

#include <QDateTime>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

// A message line that takes no room while it has nothing to say.
void setNote(QLabel* label, const QString& text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

QGroupBox* group(const QString& title, QWidget* content, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(content);
    return box;
}

} // namespace

UserDetailDialog::UserDetailDialog(Session* session, const QByteArray& user, QWidget* parent)
    : QDialog(parent), m_session(session), m_user(user)
{
    setObjectName(QStringLiteral("userDetailDialog"));
    setWindowTitle(tr("User %1").arg(boundedDisplayId(user)));

    // Ids reach 1,024 bytes: elided, never wider than the screen (the title has it whole).
    m_header = new ElidedLabel(this);
    m_header->setText(boundedDisplayId(user));
    m_header->setObjectName(QStringLiteral("userLabel"));
    QFont big = m_header->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    m_header->setFont(big);
    m_summary = new ElidedLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("messageLabel"));
    m_message->setTextFormat(Qt::PlainText);
    m_error = makeErrorLabel(this);
    m_message->hide();
    m_error->hide();

    m_actionsTable = new UserActionsTable(this);
    m_bansTable = new UserBansTable(this);
    m_auditTable = new UserAuditTable(this);
    m_overrides = new OverridesPanel(session, user, this);
    m_overrides->setActionHint([this] { return m_actionsTable->currentAction(); });
    connect(m_overrides, &OverridesPanel::written, this, [this](const QString& message) {
        setNote(m_error, {});
        setNote(m_message, message);
        refresh();
    });
    connect(m_overrides, &OverridesPanel::failed, this, &UserDetailDialog::showError);

    m_ban = new QPushButton(tr("&Ban…"), this);
    m_ban->setObjectName(QStringLiteral("banButton"));
    markWrite(m_ban, Session::Write::Ban, tr("Ban this user from one action or all of them"));
    m_unban = new QPushButton(tr("&Unban…"), this);
    m_unban->setObjectName(QStringLiteral("unbanButton"));
    markWrite(m_unban, Session::Write::Unban, tr("Lift one ban or every ban of this user"));
    m_reset = new QPushButton(tr("Re&set counters…"), this);
    m_reset->setObjectName(QStringLiteral("resetButton"));
    markWrite(m_reset, Session::Write::Reset, tr("Delete this user's rate-limit counters"));
    m_wrongTypes = new UserWrongTypes(session, user, this);
    connect(m_wrongTypes, &UserWrongTypes::changed, this, [this](const QString& text) {
        setNote(m_error, text);
        m_wrongTypes->nameKeys(m_loaded); // the verdicts name the key, not a bare WRONGTYPE
        m_actionsTable->setActions(m_loaded, m_overrides->overrides());
    });
    connect(m_wrongTypes, &UserWrongTypes::repaired, this, [this](const QString& message) {
        setNote(m_error, {});
        setNote(m_message, message);
        refresh();
    });
    connect(m_wrongTypes, &UserWrongTypes::failed, this, &UserDetailDialog::showError);
    auto* refreshButton = new QPushButton(tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("refreshButton"));
    auto* closeButton = new QPushButton(tr("Close"), this);
    closeButton->setObjectName(QStringLiteral("closeButton"));

    connect(m_ban, &QPushButton::clicked, this, &UserDetailDialog::openBan);
    connect(m_unban, &QPushButton::clicked, this, &UserDetailDialog::openUnban);
    connect(m_reset, &QPushButton::clicked, this, &UserDetailDialog::openReset);
    connect(refreshButton, &QPushButton::clicked, this, &UserDetailDialog::refresh);
    connect(closeButton, &QPushButton::clicked, this, &QDialog::reject);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("detailSplitter"));
    splitter->addWidget(group(tr("Actions"), m_actionsTable, splitter));
    splitter->addWidget(group(tr("Bans"), m_bansTable, splitter));
    splitter->addWidget(group(tr("Overrides"), m_overrides, splitter));
    splitter->addWidget(group(tr("Audit history (newest first)"), m_auditTable, splitter));
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 1);
    splitter->setStretchFactor(3, 2);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_ban);
    buttons->addWidget(m_unban);
    buttons->addWidget(m_reset);
    buttons->addWidget(m_wrongTypes->repairButton());
    buttons->addStretch(1);
    buttons->addWidget(refreshButton);
    buttons->addWidget(closeButton);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_summary);
    layout->addWidget(m_message);
    layout->addWidget(m_error);
    layout->addWidget(splitter, 1);
    layout->addLayout(buttons);

    guardWrites(this, session);
    connect(session, &Session::permissionsChanged, this, &UserDetailDialog::updateUnban);
    updateUnban();

    // Countdowns are computed from fetched deadlines; Redis is not asked again for them.
    m_ticker = new QTimer(this);
    m_ticker->setInterval(250);
    connect(m_ticker, &QTimer::timeout, m_actionsTable, &UserActionsTable::tick);
    connect(m_ticker, &QTimer::timeout, m_bansTable, &UserBansTable::tick);
    connect(m_ticker, &QTimer::timeout, m_overrides, &OverridesPanel::tick);
    m_ticker->start();

    connect(session, &Session::eventReceived, this,
            [this](const QByteArray&, const QByteArray& user) {
                if (user == m_user)
                    reload(false);
            });
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected)
            reload(false);
        else
            showSummary();
    });
    // A stalled Redis: say so instead of a blank, grey what is shown; when it answers again,
    // the timeouts of the loads it held are old news and everything is read afresh.
    markStaleWhileUnresponsive(session, {splitter});
    connect(session, &Session::responsivenessChanged, this, [this](bool responsive) {
        showSummary();
        if (responsive) {
            setNote(m_error, {});
            refresh();
        }
    });
    // Counters change without events (every hit); poll like the Subjects page, one load at
    // a time and only while the dialog is on screen: peeks addressed by the schema, no SCAN.
    m_poll = new QTimer(this);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (isVisible() && m_pending == 0 && m_session->state() == ConnectionState::Connected &&
            m_session->isResponsive())
            reload(false);
    });
    m_poll->start();
    fitToScreen(this, QSize(960, 720));
    refresh();
    showSummary(); // "Loading…" or "Waiting for Redis…" until the first answer
}

UserDetailDialog::~UserDetailDialog() = default;

void UserDetailDialog::refresh()
{
    reload(true);
}

void UserDetailDialog::reload(bool scanKeys)
{
    const int generation = ++m_generation;
    if (m_session->state() != ConnectionState::Connected) {
        m_pending = 0;
        showSummary(); // says so, and keeps what was loaded before
        Q_EMIT refreshed();
        return;
    }
    m_pending = 4;
    // Before anything was loaded there is nothing to address the light way.
    scanKeys = scanKeys || !m_everLoaded;
    loadActions(generation, scanKeys); // then the bans of the actions it found
    loadAudit(generation);
    m_overrides->load([this, generation](std::optional<Error> error) {
        if (generation != m_generation)
            return;
        if (error)
            showError(tr("Loading overrides failed"), *error);
        partDone(generation);
    });
}

void UserDetailDialog::partDone(int generation)
{
    if (generation != m_generation || --m_pending > 0)
        return;
    // The actions name the windows an override gives: both parts are in now.
    m_actionsTable->setActions(m_loaded, m_overrides->overrides());
    if (m_session->isResponsive()) { // parts that timed out in a stall loaded nothing
        m_loadedAt = QDateTime::currentMSecsSinceEpoch();
        m_everLoaded = true;
    }
    m_wrongTypes->check(m_loaded);
    showSummary();
    Q_EMIT refreshed();
}

void UserDetailDialog::showSummary()
{
    if (m_session->state() != ConnectionState::Connected) {
        m_summary->setText(
            m_everLoaded
                ? tr("Not connected to Redis: showing what was loaded at %1; writes are off "
                     "until the connection is back.")
                      .arg(formatTime(m_loadedAt))
                : tr("Not connected to Redis: nothing loaded yet; writes are off until the "
                     "connection is back."));
        m_summary->setProperty("stale", true);
        return;
    }
    if (!m_session->isResponsive()) {
        m_summary->setText(
            m_everLoaded
                ? tr("Waiting for Redis (%1): showing what was loaded at %2; writes are off "
                     "until it answers.")
                      .arg(m_session->notRespondingText(), formatTime(m_loadedAt))
                : tr("Waiting for Redis (%1): nothing loaded yet; writes are off until it "
                     "answers.")
                      .arg(m_session->notRespondingText()));
        m_summary->setProperty("stale", true);
        return;
    }
    m_summary->setProperty("stale", false);
    if (!m_everLoaded) {
        m_summary->setText(tr("Loading…"));
        return;
    }
    int withKeys = 0;
    for (const auto& [action, row] : m_loaded.rows)
        withKeys += row.hasKeys ? 1 : 0;
    const int bans = int(m_bansTable->bans().size());
    const int overrides = int(m_overrides->overrides().size());
    if (m_loaded.userKeys == 0 && withKeys == 0 && bans == 0 && overrides == 0 &&
        m_auditCount == 0) {
        m_summary->setText(tr("No keys for this id: no counters, bans or audit entries. The "
                              "verdicts below are what its first hit would get."));
        return;
    }
    m_summary->setText(
        countText(withKeys, tr("action with counters"), tr("actions with counters")) +
        QStringLiteral(" · ") + countText(bans, tr("ban"), tr("bans")) + QStringLiteral(" · ") +
        countText(overrides, tr("override"), tr("overrides")) + QStringLiteral(" · ") +
        tr("updated %1").arg(formatTime(m_loadedAt)));
}

void UserDetailDialog::showError(const QString& what, const Error& error)
{
    setNote(m_error, what + QStringLiteral(": ") + error.toString());
}

void UserDetailDialog::loadActions(int generation, bool scanKeys)
{
    const Status valid = KeySchema::validateId(m_user, tr("user id"));
    if (!valid) {
        showError(tr("Cannot load this user"), valid.error());
        partDone(generation);
        partDone(generation); // no bans either: such an id has no keys
        return;
    }
    loadUserActions(m_session, m_user, this, scanKeys, m_loaded,
                    [this, generation](UserActions loaded) {
                        if (generation != m_generation)
                            return;
                        if (!loaded.errors.isEmpty()) { // keep the rows shown before
                            setNote(m_error, loaded.errors.join(QLatin1Char('\n')));
                        } else {
                            m_loaded = std::move(loaded);
                            m_overrides->setPolicies(m_loaded.policies);
                        }
                        partDone(generation);
                        loadBans(generation);
                    });
}

void UserDetailDialog::loadBans(int generation)
{
    auto show =
        guarded<std::vector<BanInfo>>(this, [this, generation](Result<std::vector<BanInfo>> bans) {
            if (generation != m_generation)
                return;
            if (!bans) { // keep what was shown: an error is no proof the bans are gone
                showError(tr("Loading bans failed"), bans.error());
                partDone(generation);
                return;
            }
            m_bansTable->setBans(std::move(*bans));
            m_overrides->setBans(m_bansTable->bans());
            sayIfBannedAgain();
            updateUnban();
            partDone(generation);
        });
    // Addressed, never scanned: the user-wide ban and the ban of every action the user's rows
    // know (each policy's, and those the last SCAN of the user's prefix found keys for, bans
    // included), plus any shown before.
    QList<QByteArray> actions = knownActions();
    for (const BanInfo& ban : m_bansTable->bans())
        if (!actions.contains(ban.action))
            actions << ban.action;
    m_session->moderation().bansOf(m_user, actions, m_session, show);
}

void UserDetailDialog::loadAudit(int generation)
{
    m_session->audit().latest(
        m_user, 200, m_session,
        guarded<std::vector<AuditEntry>>(
            this, [this, generation](Result<std::vector<AuditEntry>> entries) {
                if (generation != m_generation)
                    return;
                if (!entries) {
                    showError(tr("Loading the audit history failed"), entries.error());
                } else {
                    m_auditCount = int(entries->size());
                    m_auditTable->setEntries(*entries);
                    m_history = std::move(*entries);
                }
                partDone(generation);
            }));
}

QList<QByteArray> UserDetailDialog::knownActions() const
{
    QList<QByteArray> actions; // every policy has a row; so do actions with keys only
    for (const auto& [action, row] : m_loaded.rows)
        actions << action;
    return actions;
}

void UserDetailDialog::openBan()
{
    auto* dialog = new BanDialog(m_session, m_user, knownActions(), this);
    dialog->setExistingBans(m_bansTable->bans());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BanDialog::banned, this, [this](const BanInfo& ban) {
        setNote(m_error, {});
        setNote(m_message, ban.action.isEmpty() ? tr("Banned from all actions.")
                                                : tr("Banned from %1.").arg(displayId(ban.action)));
        refresh();
    });
    dialog->open(); // window-modal without a nested event loop
}

void UserDetailDialog::updateUnban()
{
    applyWritePermissions(this, m_session); // the session's say first
    m_overrides->updateButtons();
    if (m_unban->isEnabled() && m_bansTable->bans().empty()) {
        m_unban->setEnabled(false);
        m_unban->setToolTip(tr("This user has no ban to lift"));
    }
}

void UserDetailDialog::openUnban()
{
    QList<QByteArray> scopes;
    for (const BanInfo& ban : m_bansTable->bans())
        scopes << ban.action;
    auto* dialog =
        new ReasonDialog(m_session, ReasonDialog::Operation::Unban, m_user, scopes, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // From what is on screen now: each action's counters and refused rate, the recent
    // automatic bans.
    dialog->setOutlook([loaded = m_loaded, history = m_history](const QByteArray& action) {
        return unbanOutlook(loaded, history, action, QDateTime::currentMSecsSinceEpoch());
    });
    connect(dialog, &ReasonDialog::applied, this, [this, dialog](qint64, const QString& message) {
        watchLifted(dialog->scope());
        setNote(m_error, {});
        setNote(m_message, message);
        refresh();
    });
    dialog->open();
}

void UserDetailDialog::watchLifted(const QByteArray& scope)
{
    m_lifted = scope;
}

void UserDetailDialog::sayIfBannedAgain()
{
    if (!m_lifted)
        return;
    // The lifted bans are gone: a ban of their scope now is a new one.
    for (const BanInfo& ban : m_bansTable->bans()) {
        if (!m_lifted->isEmpty() && ban.action != *m_lifted)
            continue;
        setNote(m_message,
                tr("Banned again at %1 (%2, %3): the unban did not hold.")
                    .arg(formatTime(ban.createdMs),
                         ban.action.isEmpty() ? tr("every action") : displayId(ban.action),
                         ban.source == QLatin1String("auto") ? tr("automatic")
                                                             : tr("by %1").arg(ban.actor)));
        m_lifted.reset();
        return;
    }
}

void UserDetailDialog::openReset()
{
    QList<QByteArray> scopes;
    for (const auto& [action, row] : m_loaded.rows) {
        if (row.hasKeys)
            scopes << action;
    }
    auto* dialog =
        new ReasonDialog(m_session, ReasonDialog::Operation::Reset, m_user, scopes, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ReasonDialog::applied, this, [this](qint64, const QString& message) {
        setNote(m_error, {});
        setNote(m_message, message);
        refresh();
    });
    dialog->open();
}

} // namespace tollgate::ui
