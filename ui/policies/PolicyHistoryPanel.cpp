#include "ui/policies/PolicyHistoryPanel.h"

#include "core/keys/IdText.h"
#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/ReasonPrompt.h"
#include "ui/common/Session.h"
#include "ui/common/Widgets.h"
#include "ui/policies/PolicyRevisionDiff.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tollgate::ui {

namespace {

enum RevisionColumn
{
    RevisionCol,
    SavedCol,
    ByCol,
    ReasonCol,
    RevisionColumnCount
};

} // namespace

PolicyHistoryPanel::PolicyHistoryPanel(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session)
{
    m_actionEdit = new QLineEdit(this);
    m_actionEdit->setObjectName(QStringLiteral("historyActionLineEdit"));
    m_actionEdit->setPlaceholderText(tr("Action (a deleted one too)"));
    m_show = new QPushButton(tr("Show"), this);
    m_show->setObjectName(QStringLiteral("showHistoryButton"));
    m_revisions = makeReadOnlyTable(this, QStringLiteral("revisionsTableWidget"),
                                    {tr("Revision"), tr("Saved"), tr("By"), tr("Reason")});
    m_diff = new PolicyRevisionDiff(this);
    m_diff->setObjectName(QStringLiteral("policyRevisionDiff"));
    m_restore = new QPushButton(tr("Restore this revision…"), this);
    m_restore->setObjectName(QStringLiteral("restoreRevisionButton"));
    m_restore->setProperty("tollgateWrite", static_cast<int>(Session::Write::EditPolicy));
    m_status = new ElidedLabel(this);
    m_status->setObjectName(QStringLiteral("historyStatusLabel"));

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("History of"), this));
    top->addWidget(m_actionEdit, 1);
    top->addWidget(m_show);
    top->addWidget(m_restore);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("historySplitter"));
    split->addWidget(m_revisions);
    split->addWidget(m_diff);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_show, &QPushButton::clicked, this,
            [this] { showAction(idFromText(m_actionEdit->text().trimmed())); });
    connect(m_actionEdit, &QLineEdit::returnPressed, m_show, &QPushButton::click);
    connect(m_revisions, &QTableWidget::itemSelectionChanged, this, [this] {
        // The selected revision against the newest: what restoring it would change.
        if (m_revisions->currentRow() >= 0)
            m_diff->compareWithNewest(m_revisions->currentRow());
        updateButtons();
    });
    connect(m_restore, &QPushButton::clicked, this, &PolicyHistoryPanel::restoreSelected);
    connect(session, &Session::permissionsChanged, this, &PolicyHistoryPanel::updateButtons);
    connect(session, &Session::eventReceived, this, [this](const QByteArray& event) {
        if (event == "policy" && !m_action.isEmpty())
            reload();
    });
    updateButtons();
}

void PolicyHistoryPanel::showAction(const QByteArray& action)
{
    if (action != m_action) {
        m_action = action;
        m_history.reset();
        m_notice.clear();
        m_actionEdit->setText(displayId(action));
        fill();
    }
    reload();
}

void PolicyHistoryPanel::reload()
{
    const quint64 generation = ++m_generation;
    if (m_action.isEmpty())
        return;
    m_status->setText(tr("Loading…"));
    m_session->policies().history(
        m_action, this, [this, generation](Result<PolicyHistory> history) {
            if (generation != m_generation)
                return;
            if (!history) {
                m_history.reset();
                m_status->setText(
                    history.error().kind == ErrorKind::NotFound
                        ? history.error().message
                        : tr("Could not read the history (%1): %2")
                              .arg(errorKindName(history.error().kind), history.error().message));
            } else {
                m_history = std::move(*history);
                const size_t count = m_history->earlier.size() + (m_history->current ? 1 : 0);
                m_status->setText(
                    (m_history->deleted() ? tr("Deleted; select a revision to restore it. ")
                                          : QString()) +
                    countText(qint64(count), tr("revision"), tr("revisions")) +
                    (m_notice.isEmpty() ? QString() : QStringLiteral(" \u00b7 ") + m_notice));
            }
            fill();
            Q_EMIT loaded();
        });
}

void PolicyHistoryPanel::fill()
{
    // At most 101 rows (the stored revision and the history's 100): filled in one go.
    const qint64 keep = selectedRevision();
    const QSignalBlocker blockTable(m_revisions);
    m_revisions->setRowCount(0);
    std::vector<const PolicyRevision*> rows;
    if (m_history && m_history->current)
        rows.push_back(&*m_history->current);
    if (m_history) {
        for (const PolicyRevision& revision : m_history->earlier)
            rows.push_back(&revision);
    }
    m_revisions->setRowCount(int(rows.size()));
    QStringList labels;
    std::vector<qint64> numbers;
    for (int row = 0; row < int(rows.size()); ++row) {
        const PolicyRevision& r = *rows[size_t(row)];
        const bool current = row == 0 && m_history->current;
        const QString name =
            current ? tr("%1 (current)").arg(r.revision) : QString::number(r.revision);
        auto* number = makeTextCell(name);
        number->setData(Qt::UserRole, r.revision);
        m_revisions->setItem(row, RevisionCol, number);
        m_revisions->setItem(row, SavedCol, makeTextCell(formatTime(r.updatedMs)));
        m_revisions->setItem(row, ByCol, makeTextCell(r.updatedBy));
        m_revisions->setItem(row, ReasonCol, makeTextCell(r.reason));
        labels << tr("revision %1").arg(name);
        numbers.push_back(r.revision);
        if (r.revision == keep)
            m_revisions->selectRow(row);
    }
    // Newest against the selected (or the one before the newest).
    const int selected = m_revisions->currentRow();
    m_diff->setHistory(m_history ? &*m_history : nullptr, labels, numbers,
                       selected >= 0 ? selected : std::min(1, int(rows.size()) - 1));
    updateButtons();
}

qint64 PolicyHistoryPanel::selectedRevision() const
{
    const QTableWidgetItem* item = m_revisions->item(m_revisions->currentRow(), RevisionCol);
    return item && item->isSelected() ? item->data(Qt::UserRole).toLongLong() : 0;
}

void PolicyHistoryPanel::updateButtons()
{
    const QString blocked = m_session->writeBlockedReason(Session::Write::EditPolicy);
    const qint64 revision = selectedRevision();
    const bool isCurrent =
        m_history && m_history->current && m_history->current->revision == revision;
    m_restore->setEnabled(blocked.isEmpty() && revision > 0 && !isCurrent);
    m_restore->setToolTip(!blocked.isEmpty() ? blocked
                          : revision == 0    ? tr("Select an earlier revision to put back")
                          : isCurrent
                              ? tr("This is the stored revision")
                              : tr("Save revision %1 again as a new revision").arg(revision));
}

void PolicyHistoryPanel::restoreSelected()
{
    const qint64 revision = selectedRevision();
    if (!m_history || revision == 0 || !m_session->canWrite(Session::Write::EditPolicy))
        return;
    const QString text =
        m_history->current
            ? tr("Put revision %1 of \"%2\" back? It is saved as a new revision after %3; "
                 "the history keeps every revision.")
                  .arg(revision)
                  .arg(displayId(m_action))
                  .arg(m_history->current->revision)
            : tr("Restore the deleted policy of \"%1\" from revision %2?")
                  .arg(displayId(m_action))
                  .arg(revision);
    ReasonPrompt::ask(this, tr("Restore revision"), text, tr("Restore"),
                      [this, revision](const QString& reason) { write(revision, reason); });
}

void PolicyHistoryPanel::write(qint64 revision, const QString& reason)
{
    if (!m_history)
        return;
    const QByteArray action = m_action;
    auto done = [this, action, revision](Result<qint64> written) {
        if (!written) {
            // A conflict: someone saved or restored since this history was read.
            Ask::warn(this, tr("Restore revision"),
                      tr("Revision %1 of \"%2\" was not restored (%3): %4")
                          .arg(revision)
                          .arg(displayId(action), errorKindName(written.error().kind),
                               written.error().message));
        } else {
            m_notice = tr("revision %1 is back as revision %2").arg(revision).arg(*written);
            Q_EMIT restored(action, *written);
        }
        reload();
    };
    // Compare-and-set against the revision this panel shows.
    if (m_history->current)
        m_session->policies().rollback(action, m_history->current->revision, revision,
                                       m_session->actor(), reason, this, done);
    else
        m_session->policies().restore(action, revision, m_session->actor(), reason, this, done);
}

} // namespace tollgate::ui
