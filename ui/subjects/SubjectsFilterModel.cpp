#include "ui/subjects/SubjectsFilterModel.h"

#include "ui/subjects/SubjectsModel.h"

namespace tollgate::ui {

SubjectsFilterModel::SubjectsFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(SubjectsModel::SortRole);
    // The filter reads the User and Action columns; the TTL tick (column Ttl only) then
    // does not make the proxy re-filter every 200 ms.
    setFilterKeyColumn(SubjectsModel::User);
    setDynamicSortFilter(true);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void SubjectsFilterModel::setUserFilter(const QString& text)
{
    if (text == m_user)
        return;
    m_user = text;
    invalidateRowsFilter();
}

void SubjectsFilterModel::setActionFilter(const QByteArray& action)
{
    if (action == m_action && m_actionSet == !action.isNull())
        return;
    m_action = action;
    m_actionSet = !action.isNull();
    invalidateRowsFilter();
}

bool SubjectsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* model = sourceModel();
    if (m_actionSet) {
        const QModelIndex action = model->index(sourceRow, SubjectsModel::Action, sourceParent);
        if (model->data(action, SubjectsModel::ActionIdRole).toByteArray() != m_action)
            return false;
    }
    if (m_user.isEmpty())
        return true;
    const QModelIndex user = model->index(sourceRow, SubjectsModel::User, sourceParent);
    return model->data(user, Qt::DisplayRole).toString().contains(m_user, Qt::CaseInsensitive);
}

} // namespace tollgate::ui
