// scanKeys() on a cluster client: a ClusterScan on the client's worker thread, sharing the
// client's router (slot map, one connection per node) instead of opening its own.
#include "core/client/ClientInternals.h"
#include "core/cluster/ClusterRouter.h"
#include "core/cluster/ClusterScan.h"

namespace tollgate {

void scanClusterKeys(Client* client, const ScanOptions& options, int batchesOut,
                     PacedBatchHandler onBatch, Callback<qint64> done)
{
    auto start = [client, options, batchesOut, onBatch = std::move(onBatch),
                  done = std::move(done)] {
        ClusterScan::Options clusterOptions;
        clusterOptions.scan = options;
        clusterOptions.scan.maxKeys = 0;
        clusterOptions.scan.maxCalls = 0;
        clusterOptions.batchesOut = batchesOut;
        // On the worker thread, the router's: the scan is its child, so it cannot outlive it
        // (closing the client ends the scan with Closed).
        ClusterRouter* router = ClientInternals::clusterRouter(*client);
        auto* scan = router ? new ClusterScan(router, clusterOptions, router)
                            : new ClusterScan(client->options(), clusterOptions);
        const QPointer<ClusterScan> alive(scan);
        const ScanRelease release = [client, alive] {
            client->runLater(std::chrono::milliseconds(0), [alive] {
                if (alive)
                    alive->release();
            });
        };
        auto seen = std::make_shared<qint64>(0);
        auto calls = std::make_shared<qint64>(0);
        auto finish = [scan, done](Result<qint64> result) {
            scan->cancel();
            scan->deleteLater();
            done(std::move(result));
        };
        QObject::connect(scan, &ClusterScan::batch, scan, [=](const QList<QByteArray>& keys) {
            QList<QByteArray> taken = keys;
            if (options.maxKeys > 0 && *seen + taken.size() > options.maxKeys)
                taken = taken.mid(0, qsizetype(options.maxKeys - *seen));
            *seen += taken.size();
            const bool stopped = options.stop && options.stop->load();
            const bool more = !stopped && (taken.isEmpty() || onBatch(taken, release));
            const bool full = (options.maxKeys > 0 && *seen >= options.maxKeys) ||
                              (options.maxCalls > 0 && ++*calls >= options.maxCalls);
            if (!more || full)
                finish(*seen);
        });
        QObject::connect(scan, &ClusterScan::finished, scan, [=] { finish(*seen); });
        QObject::connect(scan, &ClusterScan::failed, scan,
                         [=](const Error& error) { finish(error); });
        scan->start();
    };
    client->runLater(std::chrono::milliseconds(0), std::move(start));
}

} // namespace tollgate
