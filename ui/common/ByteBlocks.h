#pragma once

#include <QByteArrayView>
#include <QtGlobal>
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace tollgate::ui {

/// Bytes appended back to back in blocks of 1 MiB that never move: a million ids' or keys'
/// bytes without one large buffer to grow. Growing one (45 MB for the demo's million-subject
/// keyspace, whose keys are longer than the estimate it was reserved for) copied it on the
/// GUI thread and stalled the Keys page for 170 ms.
///
/// A run is addressed in 32 bits, its block << 20 | its offset there: a run smaller than a
/// block never spans two, and one of a block or more gets a block of its own at offset 0, so
/// 4,096 blocks (4 GiB of small runs) fit. Blocks are shared: a copy (the snapshot a worker
/// sorts) costs a pointer per block, and a copy appends to new blocks of its own, so neither
/// writes where the other reads.
class ByteBlocks
{
public:
    static constexpr size_t kBlockBytes = size_t(1) << 20;
    static constexpr size_t kMaxBlocks = size_t(1) << 12; // 12 bits of block, 20 of offset

    ByteBlocks() = default;
    ByteBlocks(const ByteBlocks& other) : m_blocks(other.m_blocks) {}
    ByteBlocks& operator=(const ByteBlocks& other)
    {
        m_blocks = other.m_blocks;
        m_fill = kNone; // the shared last block may be filled by the other copy
        return *this;
    }
    ByteBlocks(ByteBlocks&& other) noexcept { *this = std::move(other); }
    ByteBlocks& operator=(ByteBlocks&& other) noexcept
    {
        m_blocks = std::exchange(other.m_blocks, {});
        m_fill = std::exchange(other.m_fill, kNone);
        m_used = std::exchange(other.m_used, 0);
        return *this;
    }

    /// Where `bytes` went, for view(); nullopt once the 4,096 blocks are taken.
    std::optional<quint32> append(QByteArrayView bytes)
    {
        const size_t size = size_t(bytes.size());
        size_t block = m_fill;
        size_t offset = m_used;
        // "<": the next run's offset stays below kBlockBytes, in its 20 bits.
        if (size >= kBlockBytes || m_fill == kNone || m_used + size >= kBlockBytes) {
            if (m_blocks.size() == kMaxBlocks)
                return std::nullopt;
            block = m_blocks.size();
            offset = 0;
            m_blocks.emplace_back(new char[std::max(kBlockBytes, size)]);
            if (size < kBlockBytes) { // a large run leaves the block being filled as it was
                m_fill = block;
                m_used = 0;
            }
        }
        if (size > 0)
            std::memcpy(m_blocks[block].get() + offset, bytes.data(), size);
        if (block == m_fill)
            m_used += size;
        return quint32(block << 20 | offset);
    }
    QByteArrayView view(quint32 at, qsizetype size) const
    {
        return QByteArrayView(m_blocks[at >> 20].get() + (at & (kBlockBytes - 1)), size);
    }
    void clear()
    {
        m_blocks.clear();
        m_fill = kNone;
        m_used = 0;
    }

private:
    static constexpr size_t kNone = ~size_t(0);

    std::vector<std::shared_ptr<char[]>> m_blocks;
    size_t m_fill = kNone; // the block small runs go to
    size_t m_used = 0;     // bytes taken there
};

} // namespace tollgate::ui
