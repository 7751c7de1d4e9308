#include "ui/audit/AuditFilterModel.h"

#include "ui/audit/AuditModel.h"

namespace tollgate::ui {

void AuditFilterModel::setText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

void AuditFilterModel::setEvent(const QString& event)
{
    if (event == m_event)
        return;
    m_event = event;
    invalidateRowsFilter();
}

bool AuditFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* source = sourceModel();
    if (!m_event.isEmpty()) {
        const QModelIndex event = source->index(sourceRow, AuditModel::Event, sourceParent);
        if (source->data(event, AuditModel::EventNameRole).toString() != m_event)
            return false;
    }
    if (m_text.isEmpty())
        return true;
    for (int column = 0; column < source->columnCount(sourceParent); ++column) {
        const QModelIndex cell = source->index(sourceRow, column, sourceParent);
        if (source->data(cell).toString().contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace tollgate::ui
