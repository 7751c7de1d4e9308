#pragma once

#include "core/policies/PolicyHistory.h"

#include <QWidget>
#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace tollgate::ui {

class PolicyRevisionDiff;
class Session;

/// The history of one action's policy (PolicyStore::history): its revisions newest first, a
/// field-by-field comparison of any two (diffRevisions, as `tollgatectl policy diff`), and
/// "Restore this revision…", which asks for a reason and writes a new revision compare-and-set
/// against the one shown (a rollback, or the restore of a deleted policy). Every read and write
/// is asynchronous; an action typed in the line edit shows a deleted policy's history.
class PolicyHistoryPanel : public QWidget
{
    Q_OBJECT
public:
    explicit PolicyHistoryPanel(Session* session, QWidget* parent = nullptr);

    /// Reads and shows the history of `action` (nothing when empty).
    void showAction(const QByteArray& action);
    /// Reads the shown action's history again.
    void reload();
    QByteArray action() const { return m_action; }
    const std::optional<PolicyHistory>& history() const { return m_history; }

Q_SIGNALS:
    /// After each completed read (tests wait for it).
    void loaded();
    /// A revision was put back as `revision`.
    void restored(const QByteArray& action, qint64 revision);

private:
    void fill();
    void restoreSelected();
    void write(qint64 revision, const QString& reason);
    void updateButtons();
    qint64 selectedRevision() const;

    Session* m_session;
    QByteArray m_action;
    std::optional<PolicyHistory> m_history;
    quint64 m_generation = 0; // a reply for an action no longer shown is dropped
    QString m_notice;         // what the last restore did, kept across the reload it causes

    QLineEdit* m_actionEdit;
    QPushButton* m_show;
    QTableWidget* m_revisions;
    PolicyRevisionDiff* m_diff;
    QPushButton* m_restore;
    QLabel* m_status;
};

} // namespace tollgate::ui
