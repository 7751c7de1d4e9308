#include "ui/lua/ScriptsModel.h"

#include "core/scripts/ScriptLibrary.h"

#include <QFontDatabase>

namespace tollgate::ui {

ScriptsModel::ScriptsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ScriptsModel::setLoaded(const QList<bool>& loaded)
{
    m_loaded = loaded;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, LoadedColumn), index(rowCount() - 1, LoadedColumn));
}

int ScriptsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(ScriptLibrary::instance().scripts().size());
}

int ScriptsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScriptsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const ScriptInfo& script = ScriptLibrary::instance().scripts().at(index.row());
    if (role == Qt::ToolTipRole)
        return script.summary;
    if (role == Qt::FontRole && index.column() == Sha1Column)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case NameColumn:
        return script.name;
    case Sha1Column:
        return QString::fromLatin1(script.sha1);
    case LoadedColumn:
        if (index.row() >= m_loaded.size())
            return tr("?");
        return m_loaded.at(index.row()) ? tr("loaded") : tr("not loaded");
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ScriptsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case NameColumn:
        return tr("Script");
    case Sha1Column:
        return tr("SHA1");
    case LoadedColumn:
        return tr("On server");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
