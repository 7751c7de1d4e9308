#pragma once

#include <QAbstractTableModel>
#include <QList>

namespace tollgate::ui {

/// The library's scripts (ScriptLibrary order) and whether the server has each one cached.
class ScriptsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        Sha1Column,
        LoadedColumn,
        ColumnCount
    };

    explicit ScriptsModel(QObject* parent = nullptr);

    /// SCRIPT EXISTS answer, in library order; empty = unknown.
    void setLoaded(const QList<bool>& loaded);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<bool> m_loaded;
};

} // namespace tollgate::ui
