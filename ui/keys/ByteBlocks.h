#pragma once

#include <QByteArrayView>
#include <QtGlobal>
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace tollgate::ui {

/// Bytes appended back to back in blocks of 1 MiB that never move: a million keys' bytes
/// without one large buffer to grow. Growing one (45 MB for the demo's million-subject
/// keyspace, whose keys are longer than the estimate it was reserved for) copied it on the
/// GUI thread and stalled the Keys page for 170 ms. A run of bytes never spans two blocks;
/// one of more than a block gets a block of its own.
class ByteBlocks
{
public:
    /// Where `bytes` went, for view(): its block and its offset there.
    quint64 append(QByteArrayView bytes)
    {
        const size_t size = size_t(bytes.size());
        if (m_blocks.empty() || m_used + size > m_capacity) {
            m_capacity = std::max(kBlockBytes, size);
            m_blocks.emplace_back(new char[m_capacity]);
            m_used = 0;
        }
        const quint64 at = quint64(m_blocks.size() - 1) << 32 | quint64(m_used);
        if (size > 0)
            std::memcpy(m_blocks.back().get() + m_used, bytes.data(), size);
        m_used += size;
        return at;
    }
    QByteArrayView view(quint64 at, qsizetype size) const
    {
        return QByteArrayView(m_blocks[size_t(at >> 32)].get() + (at & 0xffffffffu), size);
    }
    void clear()
    {
        m_blocks.clear();
        m_used = m_capacity = 0;
    }

private:
    static constexpr size_t kBlockBytes = size_t(1) << 20;

    std::vector<std::unique_ptr<char[]>> m_blocks;
    size_t m_used = 0;     // bytes taken in the last block
    size_t m_capacity = 0; // the last block's size
};

} // namespace tollgate::ui
