#pragma once

#include "tollgate/Client.h"

#include <atomic>
#include <chrono>
#include <memory>

namespace tollgate {

/// Client-side incremental SCAN (never KEYS, never SCAN inside Lua).
struct ScanOptions
{
    QByteArray pattern = QByteArrayLiteral("*");
    QByteArray type;                    // SCAN ... TYPE, empty = any
    int count = 500;                    // COUNT hint per call
    qint64 maxKeys = 0;                 // stop after this many keys; 0 = the whole keyspace
    qint64 maxCalls = 0;                // stop after this many SCAN calls (a budget); 0 = no limit
    std::chrono::milliseconds pause{0}; // between calls: the command budget on a busy server
    /// Set (from any thread) to end the scan before its next call; done gets the keys so far.
    /// A scan that finds few matches hands out few batches, so returning false from a batch
    /// handler would come late.
    std::shared_ptr<std::atomic<bool>> stop;
};

/// Scans with `options` and calls onBatch (worker thread) with each non-empty batch of keys;
/// done gets the total number of keys seen. onBatch returns false to stop early. On a cluster
/// client every primary is scanned (ClusterScan); call it once the mode is known.
void scanKeys(Client* client, const ScanOptions& options,
              std::function<bool(const QList<QByteArray>&)> onBatch, Callback<qint64> done);

/// Hands a batch of a paced scan back: call it (from any thread) once the batch is dealt with.
using ScanRelease = std::function<void()>;
using PacedBatchHandler = std::function<bool(const QList<QByteArray>& keys, ScanRelease release)>;

/// scanKeys() with flow control: at most `batchesOut` batches (>= 1) are handed out and not
/// released yet; the scan sends no SCAN call that could bring one more until one is released.
/// On a cluster the bound holds for every primary together (ClusterScan::Options::batchesOut).
void scanKeysPaced(Client* client, const ScanOptions& options, int batchesOut,
                   PacedBatchHandler onBatch, Callback<qint64> done);

/// Collects every matching key (up to maxKeys) and delivers them on context's thread.
void collectKeys(Client* client, const ScanOptions& options, Context context,
                 Callback<QList<QByteArray>> done);

/// One SCAN call: SCAN <cursor> MATCH <pattern> COUNT <count> [TYPE <type>].
Command scanCommand(const ScanOptions& options, const QByteArray& cursor);

/// A SCAN reply: the cursor of the next call ("0": the scan is over) and the keys.
struct ScanPage
{
    QByteArray cursor;
    QList<QByteArray> keys;
};
/// The reply's error, or a Protocol error for a reply that is no SCAN reply.
Result<ScanPage> scanPage(const Result<Reply>& reply);

} // namespace tollgate
