#include "ui/user/UserDetailDialog.h"

#include "ui/common/AuditText.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"
#include "ui/common/Widgets.h"
#include "ui/user/BanDialog.h"
#include "ui/user/Guarded.h"
#include "ui/user/ReasonDialog.h"
#include "ui/user/UserActions.h"
#include "ui/user/WriteGuard.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

enum ActionColumn
{
    ActAction,
    ActCount,
    ActRemaining,
    ActReset,
    ActWindows,
    ActVerdict,
    ActColumnCount
};
enum BanColumn
{
    BanScope,
    BanReason,
    BanActor,
    BanSource,
    BanExpires,
    BanStarted,
    BanColumnCount
};
enum AuditColumn
{
    AudTime,
    AudEvent,
    AudAction,
    AudActor,
    AudReason,
    AudUntil,
    AudColumnCount
};

QTableWidget* makeTable(QWidget* parent, const QString& name, const QStringList& headers)
{
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

// Columns as wide as their content, the last one taking the rest of the width.
void fitColumns(QTableWidget* table)
{
    table->resizeColumnsToContents();
    table->horizontalHeader()->setSectionResizeMode(table->columnCount() - 1, QHeaderView::Stretch);
}

// A message line that takes no room while it has nothing to say.
void setNote(QLabel* label, const QString& text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

void setCell(QTableWidget* table, int row, int column, const QString& text,
             Qt::Alignment alignment = Qt::AlignLeft | Qt::AlignVCenter)
{
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(alignment);
    item->setToolTip(text);
    table->setItem(row, column, item);
}

qint64 steadyNowMs()
{
    return QDeadlineTimer::current().deadline();
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
    setWindowTitle(tr("User %1").arg(displayId(user)));

    m_header = new QLabel(displayId(user), this);
    m_header->setObjectName(QStringLiteral("userLabel"));
    m_header->setTextFormat(Qt::PlainText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont big = m_header->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    m_header->setFont(big);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("messageLabel"));
    m_message->setTextFormat(Qt::PlainText);
    m_error = makeErrorLabel(this);
    m_message->hide();
    m_error->hide();

    m_actionsTable = makeTable(this, QStringLiteral("actionsTableWidget"),
                               {tr("Action"), tr("Count / limit"), tr("Remaining"), tr("Resets in"),
                                tr("Windows"), tr("Next hit allowed?")});
    m_bansTable = makeTable(
        this, QStringLiteral("bansTableWidget"),
        {tr("Scope"), tr("Reason"), tr("Actor"), tr("Source"), tr("Expires"), tr("Started")});
    m_auditTable =
        makeTable(this, QStringLiteral("auditTableWidget"),
                  {tr("Time"), tr("Event"), tr("Action"), tr("Actor"), tr("Reason"), tr("Until")});

    m_ban = new QPushButton(tr("&Ban…"), this);
    m_ban->setObjectName(QStringLiteral("banButton"));
    markWrite(m_ban, Session::Write::Ban, tr("Ban this user from one action or all of them"));
    m_unban = new QPushButton(tr("&Unban…"), this);
    m_unban->setObjectName(QStringLiteral("unbanButton"));
    markWrite(m_unban, Session::Write::Unban, tr("Lift one ban or every ban of this user"));
    m_reset = new QPushButton(tr("Re&set counters…"), this);
    m_reset->setObjectName(QStringLiteral("resetButton"));
    markWrite(m_reset, Session::Write::Reset, tr("Delete this user's rate-limit counters"));
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
    splitter->addWidget(group(tr("Audit history (newest first)"), m_auditTable, splitter));
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 3);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_ban);
    buttons->addWidget(m_unban);
    buttons->addWidget(m_reset);
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

    // Countdowns are computed from fetched deadlines; Redis is not asked again for them.
    m_ticker = new QTimer(this);
    m_ticker->setInterval(250);
    connect(m_ticker, &QTimer::timeout, this, &UserDetailDialog::tick);
    m_ticker->start();

    connect(session, &Session::eventReceived, this,
            [this](const QByteArray&, const QByteArray& user) {
                if (user == m_user)
                    refresh();
            });
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected)
            refresh();
        else
            showSummary();
    });
    // Counters change without events (every hit); poll like the Subjects page, one load at
    // a time and only while the dialog is on screen.
    m_poll = new QTimer(this);
    m_poll->setInterval(kPollMs);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (isVisible() && m_pending == 0 && m_session->state() == ConnectionState::Connected)
            refresh();
    });
    m_poll->start();
    resize(960, 720);
    refresh();
}

UserDetailDialog::~UserDetailDialog() = default;

void UserDetailDialog::refresh()
{
    const int generation = ++m_generation;
    if (m_session->state() != ConnectionState::Connected) {
        m_pending = 0;
        showSummary(); // says so, and keeps what was loaded before
        Q_EMIT refreshed();
        return;
    }
    m_pending = 3;
    loadActions(generation);
    loadBans(generation);
    loadAudit(generation);
}

void UserDetailDialog::partDone(int generation)
{
    if (generation != m_generation || --m_pending > 0)
        return;
    m_loadedAt = QDateTime::currentMSecsSinceEpoch();
    m_everLoaded = true;
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
    m_summary->setProperty("stale", false);
    if (m_loaded.userKeys == 0 && m_bans.empty() && m_auditCount == 0) {
        m_summary->setText(tr("No keys for this id: no counters, bans or audit entries. The "
                              "verdicts below are what its first hit would get."));
        return;
    }
    int withKeys = 0;
    for (const auto& [action, row] : m_loaded.rows)
        withKeys += row.hasKeys ? 1 : 0;
    m_summary->setText(
        countText(withKeys, tr("action with counters"), tr("actions with counters")) +
        QStringLiteral(" · ") + countText(int(m_bans.size()), tr("ban"), tr("bans")) +
        QStringLiteral(" · ") + tr("updated %1").arg(formatTime(m_loadedAt)));
}

void UserDetailDialog::showError(const QString& what, const Error& error)
{
    setNote(m_error, what + QStringLiteral(": ") + error.toString());
}

void UserDetailDialog::loadActions(int generation)
{
    const Status valid = KeySchema::validateId(m_user, tr("user id"));
    if (!valid) {
        showError(tr("Cannot load this user"), valid.error());
        partDone(generation);
        return;
    }
    loadUserActions(m_session, m_user, this, [this, generation](UserActions loaded) {
        if (generation != m_generation)
            return;
        if (!loaded.errors.isEmpty()) { // keep the rows shown before
            setNote(m_error, loaded.errors.join(QLatin1Char('\n')));
            partDone(generation);
            return;
        }
        m_loaded = std::move(loaded);
        showActions();
        partDone(generation);
    });
}

void UserDetailDialog::showActions()
{
    // What support looks for first: denied and banned actions, then the ones with counters,
    // then the policies this user has not touched; alphabetical within each.
    m_order.clear();
    for (const auto& [action, row] : m_loaded.rows)
        m_order << &row;
    auto rank = [](const UserActionRow* row) {
        const bool denied = row->next && (!row->next->allowed || row->next->tier == Tier::Banned);
        return denied ? 0 : row->hasKeys ? 1 : 2;
    };
    std::stable_sort(
        m_order.begin(), m_order.end(),
        [&](const UserActionRow* a, const UserActionRow* b) { return rank(a) < rank(b); });
    m_actionsTable->setRowCount(int(m_order.size()));
    int r = 0;
    const auto right = Qt::AlignRight | Qt::AlignVCenter;
    for (const UserActionRow* entry : std::as_const(m_order)) {
        const QByteArray& action = entry->action;
        const UserActionRow& row = *entry;
        setCell(m_actionsTable, r, ActAction, displayId(action));
        QString windows = row.policy ? row.policy->windowsText() : tr("no policy");
        if (!row.keyWindows.isEmpty())
            windows += tr(" (other keys: %1)").arg(QString::fromUtf8(row.keyWindows.join(", ")));
        setCell(m_actionsTable, r, ActWindows, windows);
        if (row.usage) {
            setCell(m_actionsTable, r, ActCount,
                    QStringLiteral("%1 / %2").arg(row.usage->count).arg(row.usage->limit), right);
            setCell(m_actionsTable, r, ActRemaining, QString::number(row.usage->remaining), right);
            setCell(m_actionsTable, r, ActVerdict, verdictText(*row.next));
            if (row.next->tier == Tier::Banned || !row.next->allowed)
                m_actionsTable->item(r, ActVerdict)
                    ->setForeground(toneColor(Tone::Denied, palette()));
        } else {
            setCell(m_actionsTable, r, ActCount, QString(), right);
            setCell(m_actionsTable, r, ActRemaining, QString(), right);
            setCell(m_actionsTable, r, ActVerdict,
                    !row.error.isEmpty() ? row.error
                    : row.policy         ? QStringLiteral("\u2014")
                                         : tr("no policy: not limited"));
        }
        setCell(m_actionsTable, r, ActReset, QString(), right);
        ++r;
    }
    tick();
    fitColumns(m_actionsTable);
}

void UserDetailDialog::loadBans(int generation)
{
    m_session->moderation().bans(
        m_user, m_session,
        guarded<std::vector<BanInfo>>(this, [this, generation](Result<std::vector<BanInfo>> bans) {
            if (generation != m_generation)
                return;
            if (!bans) { // keep what was shown: an error is no proof the bans are gone
                showError(tr("Loading bans failed"), bans.error());
                partDone(generation);
                return;
            }
            m_bans = *bans;
            std::sort(m_bans.begin(), m_bans.end(),
                      [](const BanInfo& a, const BanInfo& b) { return a.action < b.action; });
            showBans();
            partDone(generation);
        }));
}

void UserDetailDialog::showBans()
{
    m_bansTable->setRowCount(int(m_bans.size()));
    for (int r = 0; r < int(m_bans.size()); ++r) {
        const BanInfo& ban = m_bans[size_t(r)];
        setCell(m_bansTable, r, BanScope,
                ban.action.isEmpty() ? tr("all actions") : displayId(ban.action));
        setCell(m_bansTable, r, BanReason, displayId(ban.reason.toUtf8()));
        setCell(m_bansTable, r, BanActor, displayId(ban.actor.toUtf8()));
        setCell(m_bansTable, r, BanSource, displayId(ban.source.toUtf8()));
        setCell(m_bansTable, r, BanExpires, QString());
        setCell(m_bansTable, r, BanStarted,
                ban.createdMs > 0 ? formatTime(ban.createdMs) : tr("unknown"));
    }
    tick(); // fills the countdowns, so the columns are sized for them
    fitColumns(m_bansTable);
}

void UserDetailDialog::loadAudit(int generation)
{
    m_session->audit().latest(
        m_user, 200, m_session,
        guarded<std::vector<AuditEntry>>(
            this, [this, generation](Result<std::vector<AuditEntry>> entries) {
                if (generation != m_generation)
                    return;
                if (!entries)
                    showError(tr("Loading the audit history failed"), entries.error());
                else
                    showAudit(*entries);
                partDone(generation);
            }));
}

void UserDetailDialog::showAudit(const std::vector<AuditEntry>& entries)
{
    m_auditCount = int(entries.size());
    m_auditTable->setRowCount(int(entries.size()));
    for (int r = 0; r < int(entries.size()); ++r) {
        const AuditEntry& entry = entries[size_t(r)];
        setCell(m_auditTable, r, AudTime, formatTime(entry.timeMs));
        setCell(m_auditTable, r, AudEvent, displayId(entry.event.toUtf8()));
        setCell(m_auditTable, r, AudAction,
                entry.action.isEmpty() ? tr("(all)") : displayId(entry.action));
        setCell(m_auditTable, r, AudActor, displayId(entry.actor.toUtf8()));
        // Worded like the global Audit log page: the same event reads the same in both.
        setCell(m_auditTable, r, AudReason, auditWhyText(entry));
        m_auditTable->item(r, AudReason)->setToolTip(auditWhyToolTip(entry));
        setCell(m_auditTable, r, AudUntil, auditUntilText(entry));
    }
    fitColumns(m_auditTable);
}

void UserDetailDialog::tick()
{
    const qint64 steady = steadyNowMs();
    int r = 0;
    for (const UserActionRow* row : std::as_const(m_order)) {
        // Without counters there is no window running: nothing resets.
        if (QTableWidgetItem* item = m_actionsTable->item(r, ActReset))
            item->setText(row->usage && row->hasKeys ? formatCountdown(row->resetDeadline - steady)
                                                     : QString());
        ++r;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int b = 0; b < int(m_bans.size()); ++b) {
        const BanInfo& ban = m_bans[size_t(b)];
        if (QTableWidgetItem* item = m_bansTable->item(b, BanExpires)) {
            item->setText(ban.untilMs <= 0 ? tr("permanent")
                                           : tr("in %1 (%2)")
                                                 .arg(formatCountdown(ban.untilMs - now),
                                                      formatTime(ban.untilMs)));
        }
    }
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
    dialog->setExistingBans(m_bans);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &BanDialog::banned, this, [this](const BanInfo& ban) {
        setNote(m_error, {});
        setNote(m_message, ban.action.isEmpty() ? tr("Banned from all actions.")
                                                : tr("Banned from %1.").arg(displayId(ban.action)));
        refresh();
    });
    dialog->open(); // window-modal without a nested event loop
}

void UserDetailDialog::openUnban()
{
    QList<QByteArray> scopes;
    for (const BanInfo& ban : m_bans)
        scopes << ban.action;
    auto* dialog =
        new ReasonDialog(m_session, ReasonDialog::Operation::Unban, m_user, scopes, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ReasonDialog::applied, this, [this](qint64 count) {
        setNote(m_error, {});
        setNote(m_message, tr("%1 lifted.").arg(countText(int(count), tr("ban"), tr("bans"))));
        refresh();
    });
    dialog->open();
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
    connect(dialog, &ReasonDialog::applied, this, [this](qint64 count) {
        setNote(m_error, {});
        setNote(m_message,
                tr("%1 deleted.").arg(countText(int(count), tr("counter"), tr("counters"))));
        refresh();
    });
    dialog->open();
}

} // namespace tollgate::ui
