#include "ui/slowlog/SlowlogModel.h"

#include "ui/common/DisplayText.h"
#include "ui/common/RowRoles.h"

#include <QLocale>

namespace tollgate::ui {

namespace {

// Arguments as the server logged them, readable: escaped ids stay as they are, binary shows
// as \xNN (displayId), and the list is cut to one line.
QString argumentsText(const QList<QByteArray>& arguments)
{
    QStringList parts;
    for (const QByteArray& argument : arguments)
        parts << displayId(argument);
    QString text = parts.join(QLatin1Char(' '));
    if (text.size() > 400)
        text = text.left(400) + QStringLiteral("\u2026");
    return text;
}

// The first key a script of ours ran on (EVALSHA sha numkeys key ...), for "Open key"; none
// when the server cut it short ("... (n more bytes)").
QByteArray firstScriptKey(const SlowlogEntry& entry)
{
    if (entry.script.isEmpty() || entry.arguments.size() < 4 || entry.arguments[2].toInt() < 1)
        return {};
    const QByteArray& key = entry.arguments[3];
    return key.endsWith("more bytes)") ? QByteArray() : key;
}

} // namespace

void SlowlogModel::setEntries(std::vector<SlowlogEntry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

int SlowlogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int SlowlogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SlowlogModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const SlowlogEntry& entry = m_entries[size_t(index.row())];
    if (role == RowKeyRole)
        return firstScriptKey(entry);
    if (role == Qt::TextAlignmentRole && index.column() == DurationColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::UserRole) { // sort keys
        switch (index.column()) {
        case TimeColumn:
            return entry.id;
        case DurationColumn:
            return entry.durationUs;
        default:
            break;
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::UserRole)
        return {};
    switch (index.column()) {
    case TimeColumn:
        return formatTime(entry.timeSec * 1000);
    case DurationColumn:
        return entry.durationUs >= 10'000
                   ? tr("%1 ms").arg(QLocale().toString(entry.durationUs / 1000.0, 'f', 1))
                   : tr("%1 µs").arg(QLocale().toString(entry.durationUs));
    case ScriptColumn:
        return entry.script.isEmpty() ? QString::fromUtf8(entry.arguments.value(0).toUpper())
                                      : tr("%1.lua").arg(entry.script);
    case ArgumentsColumn:
        return argumentsText(entry.arguments);
    case ClientColumn:
        return entry.clientName.isEmpty()
                   ? QString::fromUtf8(entry.client)
                   : QStringLiteral("%1 (%2)").arg(QString::fromUtf8(entry.clientName),
                                                   QString::fromUtf8(entry.client));
    default:
        return {};
    }
}

QVariant SlowlogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case DurationColumn:
        return tr("Duration");
    case ScriptColumn:
        return tr("Script / command");
    case ArgumentsColumn:
        return tr("Arguments");
    case ClientColumn:
        return tr("Client");
    default:
        return {};
    }
}

} // namespace tollgate::ui
