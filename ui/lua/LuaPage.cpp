#include "ui/lua/LuaPage.h"

#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"

#include "core/scripts/ScriptLibrary.h"
#include "core/scripts/ScriptRunner.h"
#include "ui/common/Session.h"
#include "ui/lua/ScriptForm.h"
#include "ui/lua/ScriptsModel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace tollgate::ui {

LuaPage::LuaPage(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    m_model = new ScriptsModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("scriptsTableView"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // 40 hex digits would push "loaded" off-screen at 1024: start and end are what people
    // compare; the column widens by hand.
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->horizontalHeader()->setSectionResizeMode(ScriptsModel::Sha1Column,
                                                      QHeaderView::Interactive);
    m_table->horizontalHeader()->resizeSection(
        ScriptsModel::Sha1Column, m_table->fontMetrics().horizontalAdvance(QString(16, u'0')));
    m_refresh = new QPushButton(tr("Check server"), this);
    m_refresh->setObjectName(QStringLiteral("refreshButton"));
    m_refresh->setToolTip(tr("SCRIPT EXISTS for every script"));

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_table, 1);
    leftLayout->addWidget(m_refresh, 0, Qt::AlignLeft);

    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_summary->setWordWrap(true);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_header = new QPlainTextEdit(this);
    m_header->setObjectName(QStringLiteral("headerPlainTextEdit"));
    m_header->setReadOnly(true);
    m_header->setFont(fixed);
    // Wrapped: the help is read, and a line cut at the pane's edge says nothing.
    m_header->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_form = new ScriptForm(this);
    m_form->setActor(session->actor());
    m_form->setObjectName(QStringLiteral("scriptForm"));
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_form);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName(QStringLiteral("runButton"));
    m_run->setProperty("tollgateWrite", static_cast<int>(Session::Write::RunScript));
    m_reply = new QPlainTextEdit(this);
    m_reply->setObjectName(QStringLiteral("replyPlainTextEdit"));
    m_reply->setReadOnly(true);
    m_reply->setFont(fixed);
    m_reply->setPlaceholderText(tr("The reply appears here"));

    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_header);
    auto* formBox = new QWidget(this);
    auto* formLayout = new QVBoxLayout(formBox);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(scroll, 1);
    formLayout->addWidget(m_run, 0, Qt::AlignRight);
    right->addWidget(formBox);
    right->addWidget(m_reply);
    right->setSizes({260, 320, 140});
    auto* rightBox = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(rightBox);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_summary);
    rightLayout->addWidget(right, 1);

    auto* splitter = new QSplitter(this);
    splitter->addWidget(left);
    splitter->addWidget(rightBox);
    // The table fits name, SHA1 and state in ~360 px; the rest goes to the help and the form.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({360, 900});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_refresh, &QPushButton::clicked, this, &LuaPage::refreshLoaded);
    connect(m_run, &QPushButton::clicked, this, &LuaPage::run);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& index) { showScript(index.row()); });
    connect(session, &Session::permissionsChanged, this, &LuaPage::updateRunButton);
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected)
            refreshLoaded();
    });
    if (m_model->rowCount() > 0)
        m_table->selectRow(0);
    updateRunButton();
    if (session->state() == ConnectionState::Connected)
        refreshLoaded();
}

void LuaPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refreshLoaded();
}

void LuaPage::refreshLoaded()
{
    scriptsLoaded(m_session->client(), this, [this](Result<QList<bool>> loaded) {
        m_model->setLoaded(loaded ? *loaded : QList<bool>());
    });
}

void LuaPage::selectScript(const QString& name)
{
    const auto& scripts = ScriptLibrary::instance().scripts();
    for (int i = 0; i < scripts.size(); ++i)
        if (scripts[i].name == name)
            m_table->selectRow(i);
}

void LuaPage::showScript(int row)
{
    const auto& scripts = ScriptLibrary::instance().scripts();
    if (row < 0 || row >= scripts.size())
        return;
    const ScriptInfo& script = scripts[row];
    m_current = script.name;
    m_summary->setText(script.summary);
    m_header->setPlainText(script.header);
    m_form->setScript(script);
    m_reply->clear();
    updateRunButton();
}

void LuaPage::updateRunButton()
{
    const QString blocked = m_session->writeBlockedReason(Session::Write::RunScript);
    m_run->setEnabled(blocked.isEmpty() && !m_current.isEmpty() && !m_running);
    m_run->setToolTip(blocked.isEmpty()
                          ? tr("EVALSHA %1 with these keys and arguments").arg(m_current)
                          : blocked);
}

void LuaPage::run()
{
    if (m_current.isEmpty() || m_running || !m_session->canWrite(Session::Write::RunScript))
        return;
    const Command keys = m_form->keys();
    const Command args = m_form->args();
    // A script declared read-only (can.lua), a hit in "peek" mode and a dry-run repair write
    // nothing (and run with EVALSHA_RO); anything else writes to the user's Redis.
    const ScriptInfo* script = ScriptLibrary::instance().find(m_current);
    const bool writes = script && script->writes &&
                        !(m_current == QLatin1String("hit") && args.value(0) == "peek") &&
                        !(m_current == QLatin1String("repair") && args.value(0) == "dry");
    QStringList keyNames;
    for (const QByteArray& key : keys)
        keyNames << displayId(key);
    auto start = [this, name = m_current, keys, args, writes, keyNames] {
        if (m_running || name != m_current)
            return;
        m_running = true;
        updateRunButton();
        m_reply->setPlainText(tr("Running %1…").arg(name));
        const auto runChosen = writes ? runScript : runReadOnlyScript;
        runChosen(m_session->client(), name, keys, args, this,
                  [this, name, writes, keyNames](Result<Reply> reply) {
                      m_running = false;
                      if (reply && writes) {
                          AuditEntry entry;
                          entry.event = QStringLiteral("run_script");
                          entry.actor = m_session->actor();
                          entry.reason = tr("%1.lua run by hand from the console").arg(name);
                          entry.detail = keyNames.join(QStringLiteral(", ")).left(500);
                          // The script audits its own writes; this note only says it ran by
                          // hand, and when it cannot be written the user hears of it.
                          m_session->audit().record(entry, this, [this](const Status& noted) {
                              if (!noted)
                                  m_reply->appendPlainText(
                                      tr("\nThe script ran, but the note that it was run by hand "
                                         "could not be added to the audit log: %1")
                                          .arg(noted.error().message));
                          });
                      }
                      updateRunButton();
                      if (name == m_current) {
                          m_reply->setPlainText(reply ? reply->toDisplayString()
                                                      : tr("Error (%1): %2")
                                                            .arg(errorKindName(reply.error().kind),
                                                                 reply.error().message));
                      }
                      refreshLoaded(); // running loads the script if it was not
                      Q_EMIT replyShown();
                  });
    };
    if (!writes) {
        start();
        return;
    }
    // No stays the default: a stray Enter runs nothing.
    Ask::confirm(
        this, tr("Run %1.lua").arg(m_current),
        keyNames.isEmpty()
            ? tr("Run %1.lua by hand? It writes to Redis; it is given no keys.").arg(m_current)
            : tr("Run %1.lua by hand? It writes to Redis, to these keys:\n%2")
                  .arg(m_current, keyNames.join(QLatin1Char('\n'))),
        start);
}

} // namespace tollgate::ui
