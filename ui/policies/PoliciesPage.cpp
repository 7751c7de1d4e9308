#include "ui/policies/PoliciesPage.h"

#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Session.h"
#include "ui/common/WholeRows.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PolicyEditor.h"
#include "ui/policies/PolicyHistoryPanel.h"
#include "ui/policies/UnsavedEdits.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tollgate::ui {

PoliciesPage::PoliciesPage(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    m_model = new PoliciesModel(this);
    m_model->setObjectName(QStringLiteral("policiesModel"));
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("policiesTableView"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    // Rows of one height, as on the other pages: at 1024x700 every policy of a typical setup
    // shows, and keepWholeRows() below needs it once there are more.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    // Every column in view at 1024 px: names are capped (elided, whole in the tooltip) and the
    // limits take the room that is left.
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(PoliciesModel::LimitsColumn, QHeaderView::Stretch);
    header->setMaximumSectionSize(m_table->fontMetrics().horizontalAdvance(QString(22, u'x')));
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    // Who changed a policy last and at which revision matter more than cost or count-denied
    // (the editor shows those): keep them in view on narrower windows.
    m_table->horizontalHeader()->moveSection(PoliciesModel::RevisionColumn,
                                             PoliciesModel::BanColumn);
    m_table->horizontalHeader()->moveSection(PoliciesModel::UpdatedByColumn,
                                             PoliciesModel::BanColumn + 1);

    m_reload = new QPushButton(tr("Reload"), this);
    m_reload->setObjectName(QStringLiteral("reloadButton"));
    m_new = new QPushButton(tr("New…"), this);
    m_new->setObjectName(QStringLiteral("newButton"));
    m_delete = new QPushButton(tr("Delete…"), this);
    m_delete->setObjectName(QStringLiteral("deleteButton"));
    m_delete->setProperty("tollgateWrite", static_cast<int>(Session::Write::EditPolicy));
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("statusLabel"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_reload);
    buttons->addWidget(m_new);
    buttons->addWidget(m_delete);
    buttons->addWidget(m_status, 1);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(buttons);
    leftLayout->addWidget(m_table, 1);

    m_editor = new PolicyEditor(session, this);
    m_editor->setObjectName(QStringLiteral("policyEditor"));

    // The table above the form: both get the page's whole width, so every column of the table
    // shows at 1024 px; the form scrolls rather than push the window past the screen.
    auto* form = new QScrollArea(this);
    m_form = form;
    form->setObjectName(QStringLiteral("policyEditorScrollArea"));
    form->setWidget(m_editor);
    form->setWidgetResizable(true);
    form->setFrameShape(QFrame::NoFrame);
    m_history = new PolicyHistoryPanel(session, this);
    m_history->setObjectName(QStringLiteral("policyHistoryPanel"));
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("policyTabWidget"));
    m_tabs->addTab(form, tr("Policy"));
    m_tabs->addTab(m_history, tr("History"));
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("policiesSplitter"));
    splitter->addWidget(left);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 1); // the form keeps its height, the table takes the rest
    splitter->setStretchFactor(1, 0);
    splitter->setChildrenCollapsible(false);
    keepWholeRows(m_table, splitter);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_reload, &QPushButton::clicked, this, [this] { reload(); });
    auto* reloadKey = new QShortcut(QKeySequence::Refresh, this, nullptr, nullptr,
                                    Qt::WidgetWithChildrenShortcut);
    connect(reloadKey, &QShortcut::activated, this, [this] { reload(); });
    m_unsaved = new UnsavedEdits(m_editor, this);
    connect(m_editor, &PolicyEditor::modifiedChanged, this, &PoliciesPage::markUnsaved);
    connect(m_new, &QPushButton::clicked, this, [this] {
        m_unsaved->beforeDiscarding(tr("start a new policy"), [this] {
            selectQuietly({});
            m_editor->startNew();
            if (auto* action = m_editor->findChild<QWidget*>(QStringLiteral("actionLineEdit")))
                action->setFocus();
        });
    });
    connect(m_delete, &QPushButton::clicked, this, &PoliciesPage::deleteSelected);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &PoliciesPage::onSelectionChanged);
    connect(m_editor, &PolicyEditor::saved, this,
            [this](const QByteArray& action) { reload(action); });
    // The history is read when it is looked at, not on every selection.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int tab) {
        if (m_tabs->widget(tab) == m_history)
            loadHistory();
    });
    connect(m_history, &PolicyHistoryPanel::restored, this,
            [this](const QByteArray& action) { reload(action); });
    connect(session, &Session::permissionsChanged, this, &PoliciesPage::updateButtons);
    connect(session, &Session::eventReceived, this, [this](const QByteArray& event) {
        if (event == "policy")
            reload();
    });
    connect(session, &Session::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected)
            reload();
    });
    updateButtons();
    if (session->state() == ConnectionState::Connected)
        reload();
}

QByteArray PoliciesPage::selectedAction() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const Policy* policy = rows.isEmpty() ? nullptr : m_model->policyAt(rows.first().row());
    return policy ? policy->action : QByteArray();
}

void PoliciesPage::reload(const QByteArray& select)
{
    m_status->setText(tr("Loading…"));
    m_session->policies().list(this, [this, select](Result<std::vector<Policy>> policies) {
        if (!policies) {
            m_status->setText(
                tr("Could not load policies (%1): %2")
                    .arg(errorKindName(policies.error().kind), policies.error().message));
            Q_EMIT reloaded();
            return;
        }
        const QByteArray keep = select.isEmpty() ? selectedAction() : select;
        m_loading = true;
        m_model->setPolicies(std::move(*policies));
        int row = m_model->rowOf(keep);
        // First load: show a real policy rather than an empty "new policy" form.
        const bool firstShow = row < 0 && !m_editor->isModified() &&
                               m_editor->loadedRevision() == 0 && m_model->rowCount() > 0 &&
                               select.isEmpty();
        if (firstShow)
            row = 0;
        if (row >= 0)
            m_table->selectRow(row);
        m_loading = false;
        m_status->setText(m_model->rowCount() == 1 ? tr("1 policy")
                                                   : tr("%1 policies").arg(m_model->rowCount()));
        // Refresh an untouched editor in place; a modified one keeps its revision so a save
        // still detects the conflict.
        const Policy* shown = m_model->policyAt(m_model->rowOf(m_editor->loadedAction()));
        if (shown && !m_editor->isModified() && m_editor->loadedRevision() > 0 &&
            shown->revision != m_editor->loadedRevision())
            m_editor->load(*shown);
        else if (row >= 0 && (firstShow || !select.isEmpty()) && !m_editor->isModified())
            m_editor->load(*m_model->policyAt(row));
        updateButtons();
        Q_EMIT reloaded();
    });
}

void PoliciesPage::selectQuietly(const QByteArray& action)
{
    m_loading = true;
    const int row = m_model->rowOf(action);
    if (row >= 0)
        m_table->selectRow(row);
    else
        m_table->clearSelection();
    m_loading = false;
    updateButtons();
}

void PoliciesPage::markUnsaved(bool modified)
{
    const int tab = m_tabs->indexOf(m_form);
    m_tabs->setTabText(tab, modified ? tr("Policy *") : tr("Policy"));
    m_tabs->setTabToolTip(tab, modified ? tr("Unsaved changes: Save keeps them") : QString());
}

void PoliciesPage::onSelectionChanged()
{
    updateButtons();
    if (m_loading)
        return;
    const QByteArray wanted = selectedAction();
    if (m_editor->isModified() && wanted != m_editor->loadedAction()) {
        // Back on the edited row while asking: Cancel (and Save) stay there.
        selectQuietly(m_editor->loadedAction());
        m_unsaved->beforeDiscarding(
            tr("open \"%1\"").arg(QString::fromUtf8(wanted)), [this, wanted] {
                selectQuietly(wanted);
                if (const Policy* policy = m_model->policyAt(m_model->rowOf(wanted)))
                    m_editor->load(*policy);
            });
        return;
    }
    const int row = m_model->rowOf(wanted);
    if (const Policy* policy = m_model->policyAt(row))
        m_editor->load(*policy);
    if (m_tabs->currentWidget() == m_history && !selectedAction().isEmpty())
        m_history->showAction(selectedAction());
}

void PoliciesPage::showHistory()
{
    if (m_tabs->currentWidget() == m_history)
        loadHistory();
    else
        m_tabs->setCurrentWidget(m_history); // loads it
}

void PoliciesPage::loadHistory()
{
    const QByteArray action = selectedAction();
    if (!action.isEmpty() && action != m_history->action())
        m_history->showAction(action);
    else
        m_history->reload();
}

void PoliciesPage::updateButtons()
{
    const QString blocked = m_session->writeBlockedReason(Session::Write::EditPolicy);
    const QByteArray action = selectedAction();
    m_delete->setEnabled(blocked.isEmpty() && !action.isEmpty());
    m_delete->setToolTip(!blocked.isEmpty() ? blocked
                         : action.isEmpty()
                             ? tr("Select a policy to delete")
                             : tr("Delete the policy of \"%1\"").arg(QString::fromUtf8(action)));
}

void PoliciesPage::deleteSelected()
{
    const Policy* policy = m_model->policyAt(m_model->rowOf(selectedAction()));
    if (!policy || !m_session->canWrite(Session::Write::EditPolicy))
        return;
    const QByteArray action = policy->action;
    const qint64 revision = policy->revision;
    Ask::confirm(this, tr("Delete policy"),
                 tr("Delete the policy of action \"%1\" (revision %2)? Hits of \"%1\" will "
                    "no longer be limited. Its history is kept: the History tab can restore it.")
                     .arg(displayId(action))
                     .arg(revision),
                 [this, action, revision] { removePolicy(action, revision); });
}

void PoliciesPage::removePolicy(const QByteArray& action, qint64 revision)
{
    m_session->policies().remove(
        action, revision, m_session->actor(), this, [this, action](Status status) {
            if (!status) {
                Ask::warn(this, tr("Delete policy"),
                          tr("The policy of \"%1\" was not deleted (%2): %3")
                              .arg(QString::fromUtf8(action), errorKindName(status.error().kind),
                                   status.error().message));
            } else if (m_editor->loadedAction() == action) {
                m_editor->startNew();
            }
            reload();
        });
}

} // namespace tollgate::ui
