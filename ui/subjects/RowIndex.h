#pragma once

#include "ui/common/ZeroedArray.h"

#include <QtGlobal>
#include <utility>

namespace tollgate::ui {

/// Fingerprint -> row, open addressing in one array of 12-byte slots (a QHash of a million rows
/// costs two cache misses a lookup, its span and its entry; this one costs one, and prefetch()
/// lets a slice overlap them). Rows are never removed, only marked -1 (retired), so probe
/// chains stay intact. Fingerprint 0 marks an empty slot and is stored as 1, so an empty table
/// is all zero bytes (ZeroedArray): sizing it for a million rows costs nothing up front.
class RowIndex
{
public:
    /// The row stored under `key`, -1 for a retired one, or `absent` when there is none.
    qint32 value(quint64 key, qint32 absent) const
    {
        if (m_slots.empty())
            return absent;
        key = stored(key);
        for (size_t i = size_t(key) & mask();; i = (i + 1) & mask()) {
            if (m_slots[i].key == key)
                return m_slots[i].row;
            if (m_slots[i].key == 0)
                return absent;
        }
    }
    bool contains(quint64 key) const { return value(key, kAbsent) != kAbsent; }

    /// Stores `row` under `key`, replacing what was there.
    void insert(quint64 key, qint32 row)
    {
        if ((m_size + 1) * 10 > m_slots.size() * 7)
            rehash(m_slots.empty() ? 1024 : m_slots.size() * 2);
        key = stored(key);
        for (size_t i = size_t(key) & mask();; i = (i + 1) & mask()) {
            if (m_slots[i].key == key || m_slots[i].key == 0) {
                m_size += m_slots[i].key == 0 ? 1 : 0;
                m_slots[i] = {key, row};
                return;
            }
        }
    }

    void prefetch(quint64 key) const
    {
        // (Through m_mask: GCC 12 drops a prefetch whose address it derives from size().)
        if (m_mask != 0)
            __builtin_prefetch(m_slots.data() + (size_t(stored(key)) & m_mask));
    }

    /// Room for `rows` entries without growing.
    void reserve(qint64 rows)
    {
        size_t want = 1024;
        while (want * 7 < size_t(rows) * 10)
            want *= 2;
        if (want > m_slots.size())
            rehash(want);
    }
    void clear()
    {
        m_slots = {};
        m_mask = 0;
        m_size = 0;
    }

private:
    static constexpr qint32 kAbsent = -2;

#pragma pack(push, 4)
    struct Slot
    {
        quint64 key = 0;
        qint32 row = 0;
    };
#pragma pack(pop)

    static quint64 stored(quint64 key)
    {
        return key == 0 ? 1 : key;
    }
    size_t mask() const
    {
        return m_mask;
    }

    void rehash(size_t slots)
    {
        ZeroedArray<Slot> old = std::exchange(m_slots, ZeroedArray<Slot>(slots));
        m_mask = slots - 1;
        m_size = 0;
        for (size_t i = 0; i < old.size(); ++i)
            if (old[i].key != 0)
                insert(old[i].key, old[i].row);
    }

    ZeroedArray<Slot> m_slots;
    size_t m_mask = 0; // m_slots.size() - 1, a power of two less one; 0 while empty
    size_t m_size = 0;
};

} // namespace tollgate::ui
