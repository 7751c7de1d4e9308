#include "core/redis/Scan.h"

#include "core/cluster/ClusterScan.h"

#include <QThread>
#include <QTimer>

namespace tollgate {

namespace {

struct ScanState
{
    Client* client = nullptr;
    ScanOptions options;
    std::function<bool(const QList<QByteArray>&)> onBatch;
    Callback<qint64> done;
    qint64 seen = 0;
    qint64 calls = 0;
};

void scanStep(const std::shared_ptr<ScanState>& state, const QByteArray& cursor)
{
    Command command{QByteArrayLiteral("SCAN"), cursor, QByteArrayLiteral("MATCH"),
                    state->options.pattern, QByteArrayLiteral("COUNT"),
                    QByteArray::number(state->options.count)};
    if (!state->options.type.isEmpty())
        command << QByteArrayLiteral("TYPE") << state->options.type;
    state->client->execute(command, nullptr, [state](Result<Reply> reply) {
        if (!reply) {
            state->done(reply.error());
            return;
        }
        if (reply->elements.size() != 2) {
            state->done(Error{ErrorKind::Protocol, QStringLiteral("malformed SCAN reply")});
            return;
        }
        const QByteArray next = reply->elements[0].toBytes();
        QList<QByteArray> keys;
        for (const Reply& key : reply->elements[1].elements) {
            if (state->options.maxKeys > 0 && state->seen >= state->options.maxKeys)
                break;
            keys << key.toBytes();
            ++state->seen;
        }
        bool keepGoing = true;
        if (!keys.isEmpty())
            keepGoing = state->onBatch(keys);
        const bool full =
            (state->options.maxKeys > 0 && state->seen >= state->options.maxKeys) ||
            (state->options.maxCalls > 0 && ++state->calls >= state->options.maxCalls);
        if (next == "0" || !keepGoing || full) {
            state->done(state->seen);
            return;
        }
        if (state->options.pause.count() > 0) {
            // Runs on the worker thread, which has an event loop: a timer there is fine.
            QTimer::singleShot(state->options.pause, [state, next] { scanStep(state, next); });
        } else {
            scanStep(state, next);
        }
    });
}

} // namespace

void scanKeys(Client* client, const ScanOptions& options,
              std::function<bool(const QList<QByteArray>&)> onBatch, Callback<qint64> done)
{
    if (!client->isModeKnown()) { // SCAN's reach depends on it
        client->whenModeKnown(nullptr, [=] { scanKeys(client, options, onBatch, done); });
        return;
    }
    if (client->isCluster()) {
        scanClusterKeys(client, options, std::move(onBatch), std::move(done));
        return;
    }
    auto state = std::make_shared<ScanState>();
    state->client = client;
    state->options = options;
    state->onBatch = std::move(onBatch);
    state->done = std::move(done);
    scanStep(state, QByteArrayLiteral("0"));
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
