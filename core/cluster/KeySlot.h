#pragma once

#include <QByteArray>

namespace tollgate {

/// Redis Cluster has this many hash slots; every key lives in exactly one.
constexpr int kClusterSlots = 16384;

/// The part of `key` that decides its slot: the bytes between the first '{' and the first '}'
/// after it when there is at least one, else the whole key. All of a user's Tollgate keys share
/// "{<escaped user>}", hence one slot, which is what lets one script touch them all.
QByteArray hashTagOf(const QByteArray& key);

/// The slot of `key`: CRC16 (XMODEM) of its hash tag, modulo 16384 (what CLUSTER KEYSLOT says).
int keySlot(const QByteArray& key);

} // namespace tollgate
