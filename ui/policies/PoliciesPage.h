#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;
class QTabWidget;

namespace tollgate::ui {

class PoliciesModel;
class PolicyEditor;
class PolicyHistoryPanel;
class UnsavedEdits;
class Session;

/// Policies: the table of every action's policy (live: reloaded on "policy" events), and below
/// it, in two tabs, the editor of the selected one (with New… and Delete…) and its history.
class PoliciesPage : public QWidget
{
    Q_OBJECT
public:
    explicit PoliciesPage(Session* session, QWidget* parent = nullptr);

    PoliciesModel* model() const { return m_model; }
    PolicyEditor* editor() const { return m_editor; }
    PolicyHistoryPanel* historyPanel() const { return m_history; }
    /// Shows the History tab (of the selected action, if any).
    void showHistory();

    /// PolicyStore::list, then selects `select` (or keeps the current selection).
    void reload(const QByteArray& select = {});

Q_SIGNALS:
    /// After each completed reload (tests wait for it).
    void reloaded();

private:
    void removePolicy(const QByteArray& action, qint64 revision);
    void onSelectionChanged();
    /// The selected action's history into the panel (or the shown one's again).
    void loadHistory();
    void deleteSelected();
    void updateButtons();
    QByteArray selectedAction() const;
    /// Selects `action`'s row (none: no row) without loading it into the editor.
    void selectQuietly(const QByteArray& action);
    /// The tab says when the form holds unsaved edits: "Policy *".
    void markUnsaved(bool modified);

    Session* m_session;
    PoliciesModel* m_model;
    QTableView* m_table;
    PolicyEditor* m_editor;
    PolicyHistoryPanel* m_history;
    QTabWidget* m_tabs;
    QWidget* m_form; // the Policy tab: the editor in its scroll area
    QPushButton* m_reload;
    QPushButton* m_new;
    QPushButton* m_delete;
    QLabel* m_status;
    UnsavedEdits* m_unsaved;
    bool m_loading = false;
};

} // namespace tollgate::ui
