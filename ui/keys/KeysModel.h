#pragma once

#include "tollgate/KeySchema.h"
#include "ui/common/ByteBlocks.h"
#include "ui/keys/KeyTemplate.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <optional>
#include <vector>

namespace tollgate::ui {

/// Raw keys as SCAN found them; type, TTL and a short value preview arrive later, for the
/// visible rows first (see KeysPage). Compact at a million keys: the key bytes live in one
/// buffer, a row is 16 bytes plus 8 for the index, and details exist only for the rows that
/// were fetched (the ones someone scrolled to).
class KeysModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    /// User and Action are filled only when a foreign layout is attached through a template.
    enum Column
    {
        KeyColumn,
        UserColumn,
        ActionColumn,
        TypeColumn,
        TtlColumn,
        ValueColumn,
        ColumnCount
    };

    /// One row as callers see it (built on demand from the compact storage).
    struct Row
    {
        QByteArray key;
        QByteArray type;  // empty until fetched; "none" when the key is gone
        qint64 pttl = -3; // PTTL: -1 no TTL, -2 gone, -3 not fetched yet
        QString preview;
        bool requested = false;
        qint64 expiresAt = 0; // steady-clock ms when the TTL runs out (pttl >= 0 only)
        QByteArray wrongType; // the type our schema wants here, when the key has another
        QString raw;          // the value as read, when the preview sums it up (the tooltip)
    };

    explicit KeysModel(QObject* parent = nullptr);

    /// Clears the rows; with a template, User/Action are parsed from each key.
    void clear(std::optional<KeyTemplate> keyTemplate = std::nullopt);
    bool hasTemplate() const { return m_template.has_value(); }
    /// One beginInsertRows for the whole batch.
    void append(const QList<QByteArray>& keys);
    /// Room for about `rows` keys (DBSIZE), allocated once: the index is never rebuilt at a
    /// million keys in the middle of a scan. The index itself is filled on a worker and taken
    /// over when ready; the keys found until then are indexed again.
    void reserve(qint64 rows);
    /// Fills in details of several rows; one dataChanged over the range they span.
    void setDetails(const QList<Row>& rows);
    void removeKeys(const QList<QByteArray>& keys);
    /// Keys of this schema whose type does not fit their place are flagged in the Type column.
    void setSchema(std::optional<KeySchema> schema) { m_schema = std::move(schema); }
    /// The TTLs count down client-side from the fetched PTTL: repaint them for these rows.
    void refreshCountdowns(int first, int last);

    /// Orders the rows by name (KeyColumn, bytewise) or TTL (TtlColumn: the soonest end first,
    /// then the keys without one; TTLs not read yet last in both directions); -1 brings back
    /// the order SCAN found them in, other columns are not sortable. The sort runs on a thread
    /// of its own over a snapshot (a pointer per key block, or a number per row) and comes back
    /// as one layout change; rows found meanwhile follow the sorted ones, as later scan
    /// batches do.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    /// A sort is on its thread.
    bool isSorting() const { return m_sorting; }
    /// The rows the last TTL sort put last because their TTL was not read yet.
    qint64 unreadTtlsInSort() const { return m_unreadTtls; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    Row row(int row) const;
    QByteArray key(int row) const;
    /// Marks up to `limit` rows of [first, last] that were never requested, and returns them.
    QList<QByteArray> takeUnrequested(int first, int last, int limit);
    /// Up to `limit` fetched rows of [first, last] worth reading again: fetched more than
    /// `maxAgeMs` ago, or whose TTL has run out on screen (the key is gone, or a hit renewed it).
    QList<QByteArray> staleKeys(int first, int last, qint64 maxAgeMs, int limit) const;
    int rowOf(const QByteArray& key) const;

Q_SIGNALS:
    /// A sort() has been applied.
    void sorted();

public:
    /// Printable rendering of raw key bytes: valid UTF-8 stays as is, control characters and
    /// invalid bytes become \xNN, a backslash becomes \\ so the rendering is unambiguous.
    static QString displayBytes(const QByteArray& bytes);
    /// displayBytes() of a key's name, its first 256 bytes and its size when longer: a 1 MB
    /// name laid out whole would stall every repaint of a table or dialog that shows it.
    static QString shownKey(const QByteArray& key);

private:
    struct CompactRow
    {
        quint32 at = 0; // in m_keys (ByteBlocks::append)
        quint32 length = 0;
        qint32 detail = -1; // index into m_details, once fetched
        bool requested = false;
    };
    struct Detail
    {
        QByteArray type;
        qint64 pttl = -3;
        QString preview;
        qint64 expiresAt = 0;
        QByteArray wrongType;
        QString raw;
        qint64 fetchedAt = 0; // steady-clock ms of the read
    };

    // View rows (what callers and the view see) and stored rows (m_rows) differ once sorted.
    size_t stored(int viewRow) const
    {
        return m_order.empty() ? size_t(viewRow) : size_t(m_order[size_t(viewRow)]);
    }
    int viewRow(size_t storedRow) const
    {
        return m_order.empty() ? int(storedRow) : m_position[storedRow];
    }
    /// The stored row of `key`, or -1.
    qint32 storedRowOf(QByteArrayView key) const;
    /// Takes a sort's order (empty: arrival order) with the rows added since it started.
    void applyOrder(std::vector<qint32> order, std::vector<qint32> position);
    void dropOrder(); // a sort in flight is abandoned, the order too

    QByteArrayView keyView(const CompactRow& row) const;
    const Detail* detail(const CompactRow& row) const;
    /// Keeps a key's bytes, where m_keys has room (4 GiB of keys, ByteBlocks), for addRow().
    std::optional<CompactRow> storeKey(QByteArrayView key);
    void addRow(const CompactRow& row);
    void growIndex();
    /// Puts every row into m_slots, which holds no row yet.
    void indexRows();
    // Where `hash` starts probing, loaded ahead of use (a batch prefetches all its keys first).
    void prefetchSlot(size_t hash) const
    {
        if (m_mask != 0) // (a mask: GCC 12 drops a prefetch whose address it derives from size())
            __builtin_prefetch(m_slots.data() + (hash & m_mask));
    }

    // One slot of the index: the row, or -1, and the upper half of its key's hash, so a probe
    // touches a row and its key's bytes only when the hashes agree.
    struct Slot
    {
        qint32 row = -1;
        quint32 tag = 0;
    };
    static quint32 tagOf(size_t hash) { return quint32(quint64(hash) >> 32); }

    std::vector<CompactRow> m_rows;
    ByteBlocks m_keys;             // every key's bytes, back to back
    std::vector<Slot> m_slots;     // open addressing over m_keys
    size_t m_mask = 0;             // m_slots.size() - 1 once there are slots
    std::vector<Detail> m_details; // only rows whose details were fetched
    quint64 m_indexGeneration = 0; // which reserve() a worker's index is for; clear() moves on
    std::optional<KeyTemplate> m_template;
    std::optional<KeySchema> m_schema;
    std::vector<qint32> m_order;    // view row -> stored row once sorted; empty: arrival order
    std::vector<qint32> m_position; // stored row -> view row, beside m_order
    quint64 m_sortGeneration = 0;   // a sort's result is for the rows it was started on
    bool m_sorting = false;
    qint64 m_unreadTtls = 0;
};

} // namespace tollgate::ui
