#include "core/cluster/KeySlot.h"

#include <array>
#include <cstdint>

namespace tollgate {

namespace {

// CRC16-CCITT as Redis Cluster uses it (XMODEM: polynomial 0x1021, initial value 0, no
// reflection), one table lookup per byte.
constexpr std::array<std::uint16_t, 256> makeCrcTable()
{
    std::array<std::uint16_t, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        std::uint16_t crc = std::uint16_t(byte << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? std::uint16_t((crc << 1) ^ 0x1021) : std::uint16_t(crc << 1);
        table[byte] = crc;
    }
    return table;
}

constexpr std::array<std::uint16_t, 256> kCrcTable = makeCrcTable();

std::uint16_t crc16(const char* data, qsizetype size)
{
    std::uint16_t crc = 0;
    for (qsizetype i = 0; i < size; ++i)
        crc = std::uint16_t((crc << 8) ^ kCrcTable[((crc >> 8) ^ std::uint8_t(data[i])) & 0xff]);
    return crc;
}

} // namespace

QByteArray hashTagOf(const QByteArray& key)
{
    const qsizetype open = key.indexOf('{');
    if (open < 0)
        return key;
    const qsizetype close = key.indexOf('}', open + 1);
    if (close < 0 || close == open + 1) // no '}', or "{}": the whole key counts
        return key;
    return key.mid(open + 1, close - open - 1);
}

int keySlot(const QByteArray& key)
{
    const QByteArray tag = hashTagOf(key);
    return crc16(tag.constData(), tag.size()) % kClusterSlots;
}

} // namespace tollgate
