#pragma once

#include "core/redis/Client.h"

#include <chrono>

namespace tollgate {

/// Client-side incremental SCAN (never KEYS, never SCAN inside Lua).
struct ScanOptions
{
    QByteArray pattern = QByteArrayLiteral("*");
    QByteArray type;             // SCAN ... TYPE, empty = any
    int count = 500;             // COUNT hint per call
    qint64 maxKeys = 0;          // stop after this many keys; 0 = the whole keyspace
    qint64 maxCalls = 0;         // stop after this many SCAN calls (a budget); 0 = no limit
    std::chrono::milliseconds pause{0}; // between calls: the command budget on a busy server
};

/// Scans with `options` and calls onBatch (worker thread) with each non-empty batch of keys;
/// done gets the total number of keys seen. onBatch returns false to stop early. On a cluster
/// client every primary is scanned (ClusterScan); call it once the mode is known.
void scanKeys(Client* client, const ScanOptions& options,
              std::function<bool(const QList<QByteArray>&)> onBatch, Callback<qint64> done);

/// Collects every matching key (up to maxKeys) and delivers them on context's thread.
void collectKeys(Client* client, const ScanOptions& options, Context context,
                 Callback<QList<QByteArray>> done);

} // namespace tollgate
