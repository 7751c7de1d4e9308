#pragma once

#include <QByteArray>
#include <QHashFunctions>
#include <vector>

namespace tollgate {

/// Remembers 64-bit fingerprints of what was already seen, in 8 to 16 bytes per entry (open
/// addressing, no nodes): SCAN may return a key twice, and at a million subjects a set of
/// the ids themselves would cost more than the rows. Two different ids share a fingerprint
/// with a probability of about n^2 / 2^65 (1e-7 at a million).
class FingerprintSet
{
public:
    /// Adds the fingerprint of `parts` (length-prefixed, so ("ab","c") != ("a","bc")); returns
    /// true when it was not there yet.
    bool insert(const QByteArray& first, const QByteArray& second)
    {
        return insertHash(fingerprint(first, second));
    }

    /// insert() in two steps, for many at once: fingerprint() and prefetch() each of them
    /// first, then insertHash() each. The table is far larger than the caches, so a lone
    /// insert waits for memory; a batch's loads overlap instead.
    static quint64 fingerprint(const QByteArray& first, const QByteArray& second)
    {
        const size_t seed = qHash(first.size(), size_t(0x9e3779b97f4a7c15ULL));
        quint64 h = quint64(qHashBits(first.constData(), size_t(first.size()), seed));
        h = quint64(qHashBits(second.constData(), size_t(second.size()), size_t(h)));
        return h == 0 ? 1 : h;
    }
    void prefetch(quint64 h) const
    {
        // (Through m_mask: GCC 12 drops a prefetch whose address it derives from size().)
        if (m_mask != 0)
            __builtin_prefetch(m_slots.data() + (size_t(h) & m_mask));
    }
    bool insertHash(quint64 h)
    {
        if (size_t(m_size + 1) * 2 > m_slots.size())
            grow();
        size_t mask = m_slots.size() - 1;
        for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
            if (m_slots[i] == h)
                return false;
            if (m_slots[i] == 0) {
                m_slots[i] = h;
                ++m_size;
                return true;
            }
        }
    }

    bool contains(quint64 h) const
    {
        if (m_slots.empty())
            return false;
        for (size_t i = size_t(h) & m_mask;; i = (i + 1) & m_mask) {
            if (m_slots[i] == h)
                return true;
            if (m_slots[i] == 0)
                return false;
        }
    }

    qsizetype size() const { return m_size; }

private:
    void grow()
    {
        std::vector<quint64> old = std::move(m_slots);
        m_slots.assign(old.empty() ? 1024 : old.size() * 2, 0);
        m_mask = m_slots.size() - 1;
        m_size = 0;
        for (quint64 h : old) {
            if (h != 0)
                insertHash(h);
        }
    }

    std::vector<quint64> m_slots;
    size_t m_mask = 0; // m_slots.size() - 1 once there are slots
    qsizetype m_size = 0;
};

} // namespace tollgate
