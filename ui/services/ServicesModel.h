#pragma once

#include "core/registry/ServiceRegistry.h"

#include <QAbstractTableModel>

namespace tollgate::ui {

/// The tollgated instances of the Services page, as ServiceRegistry::list() read them (a
/// handful of rows, replaced whole every refresh). Health and "last seen" are judged against
/// the server's clock of that read, so a slow console clock cannot make an instance look stale.
/// A stale instance's row is greyed out.
class ServicesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // What tells healthy from broken first (at 1024 px the columns up to Last seen show
    // without scrolling); the details after.
    enum Column
    {
        HostColumn,
        IdColumn,
        HealthColumn,
        DecisionsColumn,
        ConfigDigestColumn,
        LastSeenColumn,
        LastErrorColumn,
        CacheEntriesColumn,
        CacheSizeColumn,
        CacheHitsColumn,
        GrpcColumn,
        HttpColumn,
        StartedColumn,
        ConfigFileColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    /// The new list in one change: a dataChanged when the same instances come back in the same
    /// order (a selection survives the refresh), a reset otherwise.
    void setList(ServiceList list);
    const ServiceList& list() const { return m_list; }
    /// "ready", "not ready", "stale: last seen 40 s ago".
    QString healthText(const ServiceInstance& instance) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVariant display(const ServiceInstance& instance, int column) const;
    QVariant toolTip(const ServiceInstance& instance, int column) const;
    QVariant foreground(const ServiceInstance& instance, int column) const;

    ServiceList m_list;
};

} // namespace tollgate::ui
