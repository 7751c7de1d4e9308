#include "ui/dashboard/NearLimitFilter.h"

#include "ui/dashboard/DashboardModels.h"

namespace tollgate::ui {

NearLimitFilter::NearLimitFilter(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(NearLimitModel::SortRole);
}

void NearLimitFilter::setDeniedOnly(bool deniedOnly)
{
    if (deniedOnly == m_deniedOnly)
        return;
    m_deniedOnly = deniedOnly;
    invalidateRowsFilter();
}

bool NearLimitFilter::filterAcceptsRow(int sourceRow, const QModelIndex&) const
{
    if (!m_deniedOnly)
        return true;
    const auto* model = qobject_cast<const NearLimitModel*>(sourceModel());
    return model && sourceRow < model->rowCount() && model->rows()[size_t(sourceRow)].deniedNow();
}

} // namespace tollgate::ui
