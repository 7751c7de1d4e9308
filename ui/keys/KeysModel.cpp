#include "ui/keys/KeysModel.h"

#include "core/limits/KeyTypes.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"

#include <QDeadlineTimer>
#include <QStringDecoder>

namespace tollgate::ui {

namespace {

QString hexByte(uchar byte)
{
    return QStringLiteral("\\x%1").arg(int(byte), 2, 16, QLatin1Char('0'));
}

} // namespace

QString KeysModel::displayBytes(const QByteArray& bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString text = decoder.decode(bytes);
    QString out;
    out.reserve(bytes.size());
    if (decoder.hasError()) {
        for (char c : bytes) {
            const uchar byte = uchar(c);
            if (byte == '\\')
                out += QStringLiteral("\\\\");
            else if (byte >= 0x20 && byte < 0x7f)
                out += QLatin1Char(c);
            else
                out += hexByte(byte);
        }
        return out;
    }
    for (QChar c : text) {
        if (c == QLatin1Char('\\'))
            out += QStringLiteral("\\\\");
        else if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format)
            out += c.unicode() < 0x100
                       ? hexByte(uchar(c.unicode()))
                       : QStringLiteral("\\u%1").arg(int(c.unicode()), 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

KeysModel::KeysModel(QObject* parent) : QAbstractTableModel(parent) {}

void KeysModel::clear(std::optional<KeyTemplate> keyTemplate)
{
    beginResetModel();
    m_template = std::move(keyTemplate);
    m_rows.clear();
    m_index.clear();
    endResetModel();
}

void KeysModel::append(const QList<QByteArray>& keys)
{
    QList<QByteArray> fresh;
    for (const QByteArray& key : keys)
        if (!m_index.contains(key)) // SCAN may return a key twice
            fresh << key;
    if (fresh.isEmpty())
        return;
    const int first = rowCount();
    beginInsertRows({}, first, first + int(fresh.size()) - 1);
    for (const QByteArray& key : fresh) {
        m_index.insert(key, int(m_rows.size()));
        m_rows.push_back(Row{key, {}, -3, {}, false, 0, {}});
    }
    endInsertRows();
}

void KeysModel::setDetails(const QList<Row>& rows)
{
    int first = rowCount();
    int last = -1;
    for (const Row& details : rows) {
        const int r = m_index.value(details.key, -1);
        if (r < 0)
            continue;
        Row& row = m_rows[size_t(r)];
        row.type = details.type;
        row.pttl = details.pttl;
        row.preview = details.preview;
        row.requested = true;
        row.expiresAt = details.pttl >= 0 ? QDeadlineTimer::current().deadline() + details.pttl : 0;
        row.wrongType = m_schema ? wrongTypeExpected(*m_schema, row.key, row.type) : QByteArray();
        first = std::min(first, r);
        last = std::max(last, r);
    }
    if (last >= first)
        Q_EMIT dataChanged(index(first, TypeColumn), index(last, ValueColumn));
}

void KeysModel::removeKeys(const QList<QByteArray>& keys)
{
    bool any = false;
    for (const QByteArray& key : keys)
        any = any || m_index.contains(key);
    if (!any)
        return;
    const QSet<QByteArray> gone(keys.begin(), keys.end());
    beginResetModel();
    std::vector<Row> kept;
    kept.reserve(m_rows.size());
    m_index.clear();
    for (Row& row : m_rows) {
        if (gone.contains(row.key))
            continue;
        m_index.insert(row.key, int(kept.size()));
        kept.push_back(std::move(row));
    }
    m_rows = std::move(kept);
    endResetModel();
}

void KeysModel::refreshCountdowns(int first, int last)
{
    first = std::max(first, 0);
    last = std::min(last, rowCount() - 1);
    if (last >= first)
        Q_EMIT dataChanged(index(first, TtlColumn), index(last, TtlColumn), {Qt::DisplayRole});
}

QList<QByteArray> KeysModel::takeUnrequested(int first, int last, int limit)
{
    QList<QByteArray> keys;
    first = std::max(first, 0);
    last = std::min(last, rowCount() - 1);
    for (int r = first; r <= last && keys.size() < limit; ++r) {
        Row& row = m_rows[size_t(r)];
        if (!row.requested) {
            row.requested = true;
            keys << row.key;
        }
    }
    return keys;
}

int KeysModel::rowOf(const QByteArray& key) const
{
    return m_index.value(key, -1);
}

int KeysModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int KeysModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KeysModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& row = m_rows[size_t(index.row())];
    if (role == Qt::UserRole)
        return row.key;
    if (role == Qt::TextAlignmentRole && index.column() == TtlColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (index.column() == TypeColumn && !row.wrongType.isEmpty()) {
        if (role == Qt::ForegroundRole)
            return toneColor(Tone::Denied);
        if (role == Qt::ToolTipRole)
            return tr("A %1 where Tollgate keeps a %2: every script touching this key fails "
                      "until it is deleted")
                .arg(QString::fromLatin1(row.type), QString::fromLatin1(row.wrongType));
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case KeyColumn:
        return displayBytes(row.key);
    case UserColumn:
        return m_template
                   ? displayBytes(m_template->field(row.key, QStringLiteral("user")).toUtf8())
                   : QString();
    case ActionColumn:
        return m_template
                   ? displayBytes(m_template->field(row.key, QStringLiteral("action")).toUtf8())
                   : QString();
    case TypeColumn:
        return row.wrongType.isEmpty()
                   ? QString::fromLatin1(row.type)
                   : tr("%1, should be %2")
                         .arg(QString::fromLatin1(row.type), QString::fromLatin1(row.wrongType));
    case TtlColumn:
        if (row.pttl == -3)
            return QString();
        if (row.pttl == -1)
            return tr("no TTL");
        if (row.pttl == -2)
            return tr("gone");
        // Counts down from the fetched PTTL, like the Subjects page (no request per second).
        return formatCountdown(row.expiresAt - QDeadlineTimer::current().deadline());
    case ValueColumn:
        return row.preview;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant KeysModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case KeyColumn:
        return tr("Key");
    case UserColumn:
        return tr("User");
    case ActionColumn:
        return tr("Action");
    case TypeColumn:
        return tr("Type");
    case TtlColumn:
        return tr("TTL");
    case ValueColumn:
        return tr("Value");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
