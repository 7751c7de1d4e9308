#pragma once

#include <QSortFilterProxyModel>

namespace tollgate::ui {

/// Filters subjects by user id (case-insensitive substring of the displayed id) and by action
/// (exact), and sorts on SubjectsModel::SortRole. Sorting runs on the GUI thread: O(n log n),
/// a few ms for tens of thousands of rows (the refresh caps keys at 50k).
class SubjectsFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit SubjectsFilterModel(QObject* parent = nullptr);

    void setUserFilter(const QString& text);
    /// Empty = every action.
    void setActionFilter(const QByteArray& action);
    QString userFilter() const { return m_user; }
    QByteArray actionFilter() const { return m_action; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_user;
    QByteArray m_action;
    bool m_actionSet = false;
};

} // namespace tollgate::ui
