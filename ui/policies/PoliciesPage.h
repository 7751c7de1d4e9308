#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace tollgate::ui {

class PoliciesModel;
class PolicyEditor;
class Session;

/// Policies: the table of every action's policy (live: reloaded on "policy" events) and the
/// editor of the selected one, with New… and Delete….
class PoliciesPage : public QWidget
{
    Q_OBJECT
public:
    explicit PoliciesPage(Session* session, QWidget* parent = nullptr);

    PoliciesModel* model() const { return m_model; }
    PolicyEditor* editor() const { return m_editor; }

    /// PolicyStore::list, then selects `select` (or keeps the current selection).
    void reload(const QByteArray& select = {});

Q_SIGNALS:
    /// After each completed reload (tests wait for it).
    void reloaded();

private:
    void removePolicy(const QByteArray& action, qint64 revision);
    void onSelectionChanged();
    void deleteSelected();
    void updateButtons();
    QByteArray selectedAction() const;

    Session* m_session;
    PoliciesModel* m_model;
    QTableView* m_table;
    PolicyEditor* m_editor;
    QPushButton* m_reload;
    QPushButton* m_new;
    QPushButton* m_delete;
    QLabel* m_status;
    bool m_loading = false;
};

} // namespace tollgate::ui
