#include "core/limits/Repair.h"

#include "core/audit/AuditLog.h"
#include "core/redis/Scan.h"
#include "core/scripts/ScriptRunner.h"

#include <QMap>

namespace tollgate {

namespace {

// Everything below runs on the client's worker thread, one callback at a time: no locking.
struct RepairRun
{
    Client* client = nullptr;
    KeySchema schema;
    RepairOptions options;
    Repair::ProgressFn progress;
    Context context = nullptr;
    Callback<RepairReport> done;

    RepairReport report;
    int pendingScripts = 0;
    bool scanFinished = false;
    bool stop = false;
    std::optional<Error> error;

    void finishIfIdle()
    {
        if (!scanFinished || pendingScripts > 0 || !done)
            return;
        auto callback = std::move(done);
        done = nullptr;
        if (error) {
            deliver(context, callback, Result<RepairReport>(*error));
            return;
        }
        if (options.fix && report.totals.fixed > 0) {
            AuditEntry entry;
            entry.event = QStringLiteral("repair");
            entry.actor = options.actor;
            entry.detail = QStringLiteral("fixed=%1").arg(report.totals.fixed);
            // Deliver after the mirror is written: a CLI exits as soon as it hears back.
            AuditLog(client, schema)
                .record(entry, nullptr, [context = context, callback = callback, report = report](const Status&) {
                    deliver(context, callback, Result<RepairReport>(report));
                });
            return;
        }
        deliver(context, callback, Result<RepairReport>(report));
    }
};

// "<p>:{<escaped user>}" of a key; all keys with the same tag share a Cluster slot.
QByteArray hashTag(const QByteArray& key)
{
    const int open = key.indexOf('{');
    const int close = open < 0 ? -1 : key.indexOf('}', open + 1);
    return close < 0 ? key : key.left(close + 1);
}

void checkGroup(const std::shared_ptr<RepairRun>& run, const QList<QByteArray>& keys)
{
    ++run->pendingScripts;
    const QByteArray mode = run->options.fix ? QByteArrayLiteral("fix") : QByteArrayLiteral("dry");
    // A dry run writes nothing: EVALSHA_RO lets a read-only ACL user run it.
    const auto runRepair = run->options.fix ? runScript : runReadOnlyScript;
    runRepair(run->client, QStringLiteral("repair"), keys, {mode}, nullptr, [run](Result<Reply> reply) {
        --run->pendingScripts;
        if (!reply) {
            if (!run->error)
                run->error = reply.error();
            run->stop = true;
        } else {
            for (const Reply& row : reply->elements) {
                if (row.elements.size() < 3)
                    continue;
                const QByteArray status = row.elements[1].toBytes();
                if (status == "skipped") // repair.lua only skips keys without a TTL
                    ++run->report.skipped;
                if (status != "would_fix" && status != "fixed")
                    continue;
                ++run->report.totals.found;
                if (status == "fixed")
                    ++run->report.totals.fixed;
                if (qint64(run->report.items.size()) >= run->options.maxItems)
                    continue;
                RepairItem item;
                item.key = row.elements[0].toBytes();
                item.parsed = run->schema.parse(item.key);
                item.status = QString::fromLatin1(status);
                item.ttlMs = row.elements[2].toInteger().value_or(0);
                run->report.items.push_back(std::move(item));
            }
            if (run->progress && !run->stop && !run->progress(run->report.totals)) {
                run->stop = true;
                run->report.cancelled = true;
            }
        }
        run->finishIfIdle();
    });
}

} // namespace

Repair::Repair(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema)) {}

void Repair::run(const RepairOptions& options, ProgressFn progress, Context context,
                 Callback<RepairReport> done) const
{
    auto run = std::make_shared<RepairRun>();
    run->client = m_client;
    run->schema = m_schema;
    run->options = options;
    run->progress = std::move(progress);
    run->context = context;
    run->done = std::move(done);
    if (run->options.actor.trimmed().isEmpty())
        run->options.actor = QStringLiteral("tollgate");

    ScanOptions scan;
    scan.pattern = m_schema.allUsersPattern();
    scan.count = qMax(1, options.scanCount);
    scan.pause = options.pause;
    scanKeys(
        m_client, scan,
        [run](const QList<QByteArray>& batch) {
            if (run->stop)
                return false;
            run->report.totals.scanned += batch.size();
            QMap<QByteArray, QList<QByteArray>> groups;
            for (const QByteArray& key : batch)
                groups[hashTag(key)] << key;
            for (const QList<QByteArray>& keys : std::as_const(groups))
                checkGroup(run, keys);
            return true;
        },
        [run](Result<qint64> scanned) {
            if (!scanned && !run->error)
                run->error = scanned.error();
            run->scanFinished = true;
            run->finishIfIdle();
        });
}

} // namespace tollgate
