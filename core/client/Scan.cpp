#include "core/client/Scan.h"

#include "core/client/ClientInternals.h"
#include "core/client/TwemproxyBackends.h"
#include "core/cluster/ClusterScan.h"

#include <QThread>
#include <QTimer>
#include <optional>

namespace tollgate {

namespace {

struct ScanState
{
    Client* client = nullptr;
    ScanOptions options;
    int batchesOut = 0; // 0: no flow control
    PacedBatchHandler onBatch;
    Callback<qint64> done;
    qint64 seen = 0;
    qint64 calls = 0;
    int out = 0;                    // batches handed out, not released yet
    std::optional<QByteArray> held; // the next cursor, while `out` is at batchesOut
};

void scanStep(const std::shared_ptr<ScanState>& state, const QByteArray& cursor);

// The next call, after the pause, unless too many batches are out: release() sends it then.
void continueFrom(const std::shared_ptr<ScanState>& state, const QByteArray& cursor)
{
    if (state->batchesOut > 0 && state->out >= state->batchesOut) {
        state->held = cursor;
        return;
    }
    if (state->options.pause.count() > 0) {
        // Runs on the worker thread, which has an event loop: a timer there is fine.
        QTimer::singleShot(state->options.pause, [state, cursor] { scanStep(state, cursor); });
    } else {
        scanStep(state, cursor);
    }
}

ScanRelease releaser(const std::shared_ptr<ScanState>& state)
{
    if (state->batchesOut <= 0)
        return [] {};
    return [state] {
        // On the worker thread, where the state is touched, whichever thread releases.
        state->client->runLater(std::chrono::milliseconds(0), [state] {
            --state->out;
            if (state->held && state->out < state->batchesOut)
                continueFrom(state, *std::exchange(state->held, std::nullopt));
        });
    };
}

void scanStep(const std::shared_ptr<ScanState>& state, const QByteArray& cursor)
{
    if (state->options.stop && state->options.stop->load()) {
        state->done(state->seen);
        return;
    }
    state->client->execute(scanCommand(state->options, cursor), nullptr,
                           [state](Result<Reply> reply) {
        Result<ScanPage> page = scanPage(reply);
        if (!page) {
            state->done(page.error());
            return;
        }
        QList<QByteArray> keys;
        for (const QByteArray& key : page->keys) {
            if (state->options.maxKeys > 0 && state->seen >= state->options.maxKeys)
                break;
            keys << key;
            ++state->seen;
        }
        bool keepGoing = true;
        if (!keys.isEmpty()) {
            if (state->batchesOut > 0)
                ++state->out;
            keepGoing = state->onBatch(keys, releaser(state));
        }
        const bool full =
            (state->options.maxKeys > 0 && state->seen >= state->options.maxKeys) ||
            (state->options.maxCalls > 0 && ++state->calls >= state->options.maxCalls);
        if (page->cursor == "0" || !keepGoing || full) {
            state->done(state->seen);
            return;
        }
        continueFrom(state, page->cursor);
    });
}

} // namespace

Command scanCommand(const ScanOptions& options, const QByteArray& cursor)
{
    Command command{QByteArrayLiteral("SCAN"),  cursor,
                    QByteArrayLiteral("MATCH"), options.pattern,
                    QByteArrayLiteral("COUNT"), QByteArray::number(std::max(1, options.count))};
    if (!options.type.isEmpty())
        command << QByteArrayLiteral("TYPE") << options.type;
    return command;
}

Result<ScanPage> scanPage(const Result<Reply>& reply)
{
    if (!reply)
        return reply.error();
    if (reply->elements.size() != 2)
        return Error{ErrorKind::Protocol, QStringLiteral("malformed SCAN reply")};
    ScanPage page;
    page.cursor = reply->elements[0].toBytes();
    page.keys.reserve(qsizetype(reply->elements[1].elements.size()));
    for (const Reply& key : reply->elements[1].elements)
        page.keys << key.toBytes();
    return page;
}

namespace {

// Through Twemproxy (which forwards no SCAN) each backend is scanned directly, one after the
// other, with what is left of maxKeys; a batch handler's "stop" ends the whole scan.
void scanBackends(TwemproxyBackends* backends, int index, const ScanOptions& options,
                  int batchesOut, std::shared_ptr<std::atomic<bool>> stopped, qint64 seenBefore,
                  PacedBatchHandler onBatch, Callback<qint64> done)
{
    if (index == backends->size() || stopped->load() ||
        (options.maxKeys > 0 && seenBefore >= options.maxKeys)) {
        done(seenBefore);
        return;
    }
    ScanOptions mine = options;
    if (options.maxKeys > 0)
        mine.maxKeys = options.maxKeys - seenBefore;
    scanKeysPaced(
        backends->at(index), mine, batchesOut,
        [onBatch, stopped](const QList<QByteArray>& keys, ScanRelease release) {
            const bool more = onBatch(keys, std::move(release));
            if (!more)
                stopped->store(true);
            return more;
        },
        [=](Result<qint64> seen) {
            if (!seen) {
                done(seen);
                return;
            }
            scanBackends(backends, index + 1, options, batchesOut, stopped, seenBefore + *seen,
                         onBatch, done);
        });
}

} // namespace

void scanKeysPaced(Client* client, const ScanOptions& options, int batchesOut,
                   PacedBatchHandler onBatch, Callback<qint64> done)
{
    if (TwemproxyBackends* backends = ClientInternals::twemproxyBackends(*client)) {
        if (backends->isEmpty())
            done(TwemproxyBackends::missing(QStringLiteral("Enumerating keys (SCAN)")));
        else
            scanBackends(backends, 0, options, batchesOut,
                         std::make_shared<std::atomic<bool>>(false), 0, std::move(onBatch),
                         std::move(done));
        return;
    }
    if (!client->isModeKnown()) { // SCAN's reach depends on it
        client->whenModeKnown(nullptr, [=] {
            scanKeysPaced(client, options, batchesOut, onBatch, done);
        });
        return;
    }
    if (client->isCluster()) {
        scanClusterKeys(client, options, batchesOut, std::move(onBatch), std::move(done));
        return;
    }
    auto state = std::make_shared<ScanState>();
    state->client = client;
    state->options = options;
    state->batchesOut = batchesOut;
    state->onBatch = std::move(onBatch);
    state->done = std::move(done);
    scanStep(state, QByteArrayLiteral("0"));
}

void scanKeys(Client* client, const ScanOptions& options,
              std::function<bool(const QList<QByteArray>&)> onBatch, Callback<qint64> done)
{
    scanKeysPaced(
        client, options, 0,
        [onBatch = std::move(onBatch)](const QList<QByteArray>& keys, const ScanRelease&) {
            return onBatch(keys);
        },
        std::move(done));
}

void collectKeys(Client* client, const ScanOptions& options, Context context,
                 Callback<QList<QByteArray>> done)
{
    auto keys = std::make_shared<QList<QByteArray>>();
    scanKeys(
        client, options,
        [keys](const QList<QByteArray>& batch) {
            *keys << batch;
            return true;
        },
        [keys, context, done](Result<qint64> total) {
            if (!total)
                deliver(context, done, Result<QList<QByteArray>>(total.error()));
            else
                deliver(context, done, Result<QList<QByteArray>>(*keys));
        });
}

} // namespace tollgate
