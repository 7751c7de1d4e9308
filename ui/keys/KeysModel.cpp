#include "ui/keys/KeysModel.h"

#include "core/keys/KeyTypes.h"
#include "tollgate/Result.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Palette.h"

#include <QDeadlineTimer>
#include <QSet>
#include <QStringDecoder>
#include <algorithm>
#include <limits>
#include <numeric>
#include <thread>

namespace tollgate::ui {

namespace {

QString hexByte(uchar byte)
{
    return QStringLiteral("\\x%1").arg(int(byte), 2, 16, QLatin1Char('0'));
}

constexpr qint64 kTtlNotRead = std::numeric_limits<qint64>::max();
constexpr qint64 kNoTtl = kTtlNotRead - 1;

// What a row sorts by in the TTL column: when it ends (gone: already), no TTL after every end.
qint64 ttlOrder(qint64 pttl, qint64 expiresAt)
{
    if (pttl == -3)
        return kTtlNotRead;
    if (pttl == -1)
        return kNoTtl;
    return pttl == -2 ? std::numeric_limits<qint64>::min() : expiresAt;
}

} // namespace

QString KeysModel::shownKey(const QByteArray& key)
{
    return boundedText(key, 256, &KeysModel::displayBytes);
}

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

QByteArrayView KeysModel::keyView(const CompactRow& row) const
{
    return m_keys.view(row.at, row.length);
}

const KeysModel::Detail* KeysModel::detail(const CompactRow& row) const
{
    return row.detail < 0 ? nullptr : &m_details[size_t(row.detail)];
}

QByteArray KeysModel::key(int row) const
{
    return keyView(m_rows[stored(row)]).toByteArray();
}

KeysModel::Row KeysModel::row(int r) const
{
    const CompactRow& row = m_rows[stored(r)];
    Row out{key(r), {}, -3, {}, row.requested, 0, {}, {}};
    if (const Detail* d = detail(row)) {
        out.type = d->type;
        out.pttl = d->pttl;
        out.preview = d->preview;
        out.expiresAt = d->expiresAt;
        out.wrongType = d->wrongType;
        out.raw = d->raw;
    }
    return out;
}

int KeysModel::rowOf(const QByteArray& key) const
{
    const qint32 row = storedRowOf(key);
    return row < 0 ? -1 : viewRow(size_t(row));
}

qint32 KeysModel::storedRowOf(QByteArrayView key) const
{
    if (m_slots.empty())
        return -1;
    const size_t hash = qHash(key);
    const quint32 tag = tagOf(hash);
    for (size_t i = hash & m_mask; m_slots[i].row >= 0; i = (i + 1) & m_mask) {
        if (m_slots[i].tag == tag && keyView(m_rows[size_t(m_slots[i].row)]) == key)
            return m_slots[i].row;
    }
    return -1;
}

void KeysModel::growIndex()
{
    m_slots.assign(m_slots.empty() ? 1024 : m_slots.size() * 2, Slot());
    indexRows();
}

void KeysModel::indexRows()
{
    m_mask = m_slots.size() - 1;
    for (size_t r = 0; r < m_rows.size(); ++r) {
        const size_t hash = qHash(keyView(m_rows[r]));
        size_t i = hash & m_mask;
        while (m_slots[i].row >= 0)
            i = (i + 1) & m_mask;
        m_slots[i] = {qint32(r), tagOf(hash)};
    }
}

std::optional<KeysModel::CompactRow> KeysModel::storeKey(QByteArrayView key)
{
    const std::optional<quint32> at = m_keys.append(key);
    if (!at)
        return std::nullopt;
    CompactRow row;
    row.at = *at;
    row.length = quint32(key.size());
    return row;
}

// The caller has checked the key is not there yet.
void KeysModel::addRow(const CompactRow& row)
{
    m_rows.push_back(row);
    if (!m_order.empty()) { // sorted: new rows come last, as they do unsorted
        m_position.push_back(qint32(m_order.size()));
        m_order.push_back(qint32(m_rows.size() - 1));
    }
    if ((m_rows.size() + 1) * 2 > m_slots.size()) {
        growIndex(); // doubling: each key is re-indexed O(1) times on average
        return;
    }
    const size_t hash = qHash(keyView(row));
    size_t i = hash & m_mask;
    while (m_slots[i].row >= 0)
        i = (i + 1) & m_mask;
    m_slots[i] = {qint32(m_rows.size() - 1), tagOf(hash)};
}

void KeysModel::clear(std::optional<KeyTemplate> keyTemplate)
{
    beginResetModel();
    m_template = std::move(keyTemplate);
    m_rows.clear();
    m_keys.clear();
    m_slots.clear();
    m_mask = 0;
    m_details.clear();
    ++m_indexGeneration; // an index being filled for the old rows is not taken over
    dropOrder();
    endResetModel();
}

void KeysModel::reserve(qint64 rows)
{
    if (rows <= qint64(m_rows.size()))
        return;
    m_rows.reserve(size_t(rows));
    size_t slots = m_slots.empty() ? 1024 : m_slots.size();
    while (slots < size_t(rows + 1) * 2)
        slots *= 2;
    if (slots <= m_slots.size())
        return;
    // The memory reserved above is touched a little per slice as rows come; the index is
    // touched whole at once, 16 MB for a million keys: 100 ms of page faults on the GUI thread
    // (bench_keys). A worker fills it; the keys added meanwhile go to the index there is, and
    // are indexed again in the new one when it arrives.
    // A thread of its own, not the shared pool: queued behind a sort of the Subjects page, the
    // index came seconds late, and indexing the hundreds of thousands of keys found meanwhile
    // stalled the GUI thread for 146 ms (bench_console --keyspace demo).
    const quint64 generation = ++m_indexGeneration;
    const Context self(this);
    std::thread([self, slots, generation, model = this] {
        auto index = std::make_shared<std::vector<Slot>>(slots);
        self.post([model, generation, index] {
            if (generation != model->m_indexGeneration || index->size() <= model->m_slots.size())
                return;
            model->m_slots.swap(*index);
            model->indexRows();
        });
    }).detach();
}

void KeysModel::append(const QList<QByteArray>& keys)
{
    // SCAN may return a key twice, even within one batch: the index says which are new.
    QSet<QByteArrayView> batch;
    QList<QByteArrayView> fresh;
    fresh.reserve(keys.size());
    for (const QByteArray& key : keys) // their index slots load at once, not one miss at a time
        prefetchSlot(qHash(QByteArrayView(key)));
    for (const QByteArray& key : keys)
        if (storedRowOf(key) < 0 && !batch.contains(key)) {
            batch.insert(key);
            fresh << key;
        }
    // The bytes go first: the rows announced are the keys that found room.
    std::vector<CompactRow> rows;
    rows.reserve(size_t(fresh.size()));
    for (QByteArrayView key : fresh)
        if (const std::optional<CompactRow> row = storeKey(key))
            rows.push_back(*row);
    if (rows.empty())
        return;
    const int first = rowCount();
    beginInsertRows({}, first, first + int(rows.size()) - 1);
    for (const CompactRow& row : rows)
        addRow(row);
    endInsertRows();
}

void KeysModel::setDetails(const QList<Row>& rows)
{
    int first = rowCount();
    int last = -1;
    for (const Row& details : rows) {
        const qint32 at = storedRowOf(details.key);
        if (at < 0)
            continue;
        const int r = viewRow(size_t(at));
        CompactRow& row = m_rows[size_t(at)];
        if (row.detail < 0) {
            row.detail = qint32(m_details.size());
            m_details.emplace_back();
        }
        Detail& d = m_details[size_t(row.detail)];
        d.type = details.type;
        d.pttl = details.pttl;
        d.preview = details.preview;
        d.raw = details.raw;
        d.fetchedAt = QDeadlineTimer::current().deadline();
        d.expiresAt = details.pttl >= 0 ? d.fetchedAt + details.pttl : 0;
        d.wrongType = m_schema ? wrongTypeExpected(*m_schema, details.key, d.type) : QByteArray();
        row.requested = true;
        first = std::min(first, r);
        last = std::max(last, r);
    }
    if (last >= first)
        Q_EMIT dataChanged(index(first, TypeColumn), index(last, ValueColumn));
}

void KeysModel::removeKeys(const QList<QByteArray>& keys)
{
    QSet<int> gone; // stored rows
    for (const QByteArray& key : keys)
        if (const qint32 r = storedRowOf(key); r >= 0)
            gone.insert(r);
    if (gone.isEmpty())
        return;
    // Deleting is an operator's action on a few selected keys; rebuilding once is simpler
    // than keeping a million row numbers in step.
    beginResetModel();
    std::vector<CompactRow> rows = std::move(m_rows);
    const ByteBlocks bytes = std::exchange(m_keys, ByteBlocks());
    std::vector<Detail> details = std::move(m_details);
    const std::vector<qint32> order = std::exchange(m_order, {});
    dropOrder();
    std::vector<qint32> renumbered(rows.size(), -1); // old stored row -> new one
    m_rows.clear();
    m_details.clear();
    m_slots.clear();
    m_mask = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
        if (gone.contains(int(r)))
            continue;
        const std::optional<CompactRow> stored = storeKey(bytes.view(rows[r].at, rows[r].length));
        if (!stored) // (a subset of keys that had room: never)
            continue;
        addRow(*stored);
        renumbered[r] = qint32(m_rows.size() - 1);
        CompactRow& kept = m_rows.back();
        kept.requested = rows[r].requested;
        if (rows[r].detail >= 0) {
            kept.detail = qint32(m_details.size());
            m_details.push_back(std::move(details[size_t(rows[r].detail)]));
        }
    }
    if (!order.empty()) { // the rows left keep their sorted places
        m_position.assign(m_rows.size(), -1);
        for (qint32 was : order)
            if (const qint32 now = renumbered[size_t(was)]; now >= 0) {
                m_position[size_t(now)] = qint32(m_order.size());
                m_order.push_back(now);
            }
    }
    endResetModel();
}

void KeysModel::sort(int column, Qt::SortOrder order)
{
    if (column != -1 && column != KeyColumn && column != TtlColumn)
        return;
    const quint64 generation = ++m_sortGeneration;
    if (column == -1) {
        applyOrder({}, {});
        return;
    }
    // The snapshot: the key blocks are shared (a pointer each) with the rows' places, or one
    // number per row for the TTL; the comparisons all happen on the sort's own thread.
    struct Snapshot
    {
        ByteBlocks keys;
        std::vector<CompactRow> rows;
        std::vector<qint64> ends;
    };
    auto snapshot = std::make_shared<Snapshot>();
    if (column == KeyColumn) {
        snapshot->keys = m_keys;
        snapshot->rows = m_rows;
    } else {
        m_unreadTtls = 0;
        snapshot->ends.reserve(m_rows.size());
        for (const CompactRow& row : m_rows) {
            const Detail* d = detail(row);
            snapshot->ends.push_back(d ? ttlOrder(d->pttl, d->expiresAt) : kTtlNotRead);
            m_unreadTtls += snapshot->ends.back() == kTtlNotRead ? 1 : 0;
        }
    }
    const size_t count = m_rows.size();
    m_sorting = true;
    const Context self(this);
    std::thread([self, snapshot, count, column, order, generation, model = this] {
        auto sorted = std::make_shared<std::pair<std::vector<qint32>, std::vector<qint32>>>();
        auto& [rows, position] = *sorted;
        rows.resize(count);
        std::iota(rows.begin(), rows.end(), 0);
        const bool up = order == Qt::AscendingOrder;
        if (column == KeyColumn) {
            const Snapshot& s = *snapshot;
            std::stable_sort(rows.begin(), rows.end(), [&s, up](qint32 a, qint32 b) {
                const QByteArrayView ka =
                    s.keys.view(s.rows[size_t(a)].at, s.rows[size_t(a)].length);
                const QByteArrayView kb =
                    s.keys.view(s.rows[size_t(b)].at, s.rows[size_t(b)].length);
                return up ? ka < kb : kb < ka;
            });
        } else {
            const std::vector<qint64>& ends = snapshot->ends;
            std::stable_sort(rows.begin(), rows.end(), [&ends, up](qint32 a, qint32 b) {
                const qint64 ea = ends[size_t(a)], eb = ends[size_t(b)];
                if ((ea == kTtlNotRead) != (eb == kTtlNotRead))
                    return eb == kTtlNotRead; // not read yet: last either way
                return up ? ea < eb : eb < ea;
            });
        }
        position.resize(count);
        for (size_t i = 0; i < count; ++i)
            position[size_t(rows[i])] = qint32(i);
        self.post([model, generation, sorted] {
            if (generation == model->m_sortGeneration)
                model->applyOrder(std::move(sorted->first), std::move(sorted->second));
        });
    }).detach();
}

void KeysModel::applyOrder(std::vector<qint32> order, std::vector<qint32> position)
{
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList(); // the selection, the current row
    std::vector<size_t> storedRows;
    storedRows.reserve(size_t(before.size()));
    for (const QModelIndex& index : before)
        storedRows.push_back(stored(index.row()));
    m_order = std::move(order);
    m_position = std::move(position);
    for (size_t row = m_order.size(); !m_order.empty() && row < m_rows.size(); ++row) {
        m_position.push_back(qint32(m_order.size())); // found while it sorted: last
        m_order.push_back(qint32(row));
    }
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i)
        after << index(viewRow(storedRows[size_t(i)]), before[i].column());
    changePersistentIndexList(before, after);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    m_sorting = false;
    Q_EMIT sorted();
}

void KeysModel::dropOrder()
{
    ++m_sortGeneration;
    m_sorting = false;
    m_order.clear();
    m_position.clear();
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
        CompactRow& row = m_rows[stored(r)];
        if (!row.requested) {
            row.requested = true;
            keys << key(r);
        }
    }
    return keys;
}

QList<QByteArray> KeysModel::staleKeys(int first, int last, qint64 maxAgeMs, int limit) const
{
    QList<QByteArray> keys;
    const qint64 now = QDeadlineTimer::current().deadline();
    first = std::max(first, 0);
    last = std::min(last, rowCount() - 1);
    for (int r = first; r <= last && keys.size() < limit; ++r) {
        const Detail* d = detail(m_rows[stored(r)]);
        if (d && (d->fetchedAt + maxAgeMs <= now || (d->pttl >= 0 && d->expiresAt <= now)))
            keys << key(r);
    }
    return keys;
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
    const CompactRow& compact = m_rows[stored(index.row())];
    static const Detail kNotFetched;
    const Detail& row = detail(compact) ? *detail(compact) : kNotFetched;
    if (role == Qt::UserRole)
        return key(index.row());
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
        return shownKey(key(index.row()));
    case UserColumn:
        return m_template
                   ? displayBytes(
                         m_template->field(key(index.row()), QStringLiteral("user")).toUtf8())
                   : QString();
    case ActionColumn:
        return m_template
                   ? displayBytes(
                         m_template->field(key(index.row()), QStringLiteral("action")).toUtf8())
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
        return role == Qt::ToolTipRole && !row.raw.isEmpty() ? row.raw : row.preview;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant KeysModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::InitialSortOrderRole) // the first click: A to Z, the soonest end first
        return Qt::AscendingOrder;
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
