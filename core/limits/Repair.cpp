#include "core/limits/Repair.h"

#include "core/audit/AuditLog.h"
#include "core/redis/Scan.h"
#include "core/scripts/ScriptRunner.h"

#include <QMap>

namespace tollgate {

namespace {

// The global audit entry of a fix: who, why and which keys (the first kMaxNamedKeys by name).
AuditEntry repairEntry(const RepairOptions& options, const RepairReport& report)
{
    QStringList names;
    for (const RepairItem& item : report.items)
        if (item.status == QLatin1String("fixed") && names.size() < Repair::kMaxNamedKeys)
            names << QString::fromUtf8(item.key);
    const qint64 fixed = report.totals.fixed;
    QString detail =
        QStringLiteral("fixed=%1: %2").arg(fixed).arg(names.join(QStringLiteral(", ")));
    if (fixed > names.size())
        detail += QStringLiteral(" and %1 more").arg(fixed - names.size());
    AuditEntry entry;
    entry.event = QStringLiteral("repair");
    entry.actor = options.actor;
    entry.reason = options.reason;
    entry.detail = detail;
    return entry;
}

// Delivers the report, or the error that stopped the run, once whatever was fixed is in the
// global audit stream (a CLI exits as soon as it hears back). Fixed keys are recorded even
// when a later batch failed.
void finish(Client* client, const KeySchema& schema, const RepairOptions& options,
            const RepairReport& report, const std::optional<Error>& error, Context context,
            const Callback<RepairReport>& done)
{
    const Result<RepairReport> result = error ? Result<RepairReport>(*error) : report;
    if (!options.fix || report.totals.fixed == 0) {
        deliver(context, done, result);
        return;
    }
    AuditLog(client, schema)
        .record(repairEntry(options, report), nullptr,
                [context, done, result](const Status& recorded) {
                    deliver(context, done,
                            recorded || !result ? result : Result<RepairReport>(recorded.error()));
                });
}

std::optional<RepairItem> itemFromRow(const KeySchema& schema, const Reply& row)
{
    if (row.elements.size() < 3)
        return std::nullopt;
    RepairItem item;
    item.key = row.elements[0].toBytes();
    item.parsed = schema.parse(item.key);
    item.status = QString::fromLatin1(row.elements[1].toBytes());
    item.ttlMs = row.elements[2].toInteger().value_or(0);
    return item;
}

Status validate(RepairOptions& options)
{
    if (options.actor.trimmed().isEmpty())
        options.actor = QStringLiteral("tollgate");
    // Like every other write: the audit trail says why.
    if (options.fix && options.reason.trimmed().isEmpty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("a reason is required to repair keys")};
    return Unit{};
}

// What run() and fixKeys() both carry from call to completion.
struct RepairJob
{
    Client* client = nullptr;
    KeySchema schema;
    RepairOptions options;
    Repair::ProgressFn progress;
    Context context = nullptr;
    Callback<RepairReport> done;
    RepairReport report;
};

// A new job of type Job, or null when the options are refused (delivered as the error).
template <typename Job>
std::shared_ptr<Job> startJob(Client* client, const KeySchema& schema, const RepairOptions& options,
                              Repair::ProgressFn progress, Context context,
                              Callback<RepairReport> done)
{
    auto job = std::make_shared<Job>();
    job->client = client;
    job->schema = schema;
    job->options = options;
    job->progress = std::move(progress);
    job->context = context;
    job->done = std::move(done);
    if (rejected(validate(job->options), context, job->done))
        return nullptr;
    return job;
}

// Everything below runs on the client's worker thread, one callback at a time: no locking.
struct RepairRun : RepairJob
{
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
        finish(client, schema, options, report, error, context, callback);
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
    runRepair(run->client, QStringLiteral("repair"), keys, {mode}, nullptr,
              [run](Result<Reply> reply) {
                  --run->pendingScripts;
                  if (!reply) {
                      if (!run->error)
                          run->error = reply.error();
                      run->stop = true;
                  } else {
                      std::vector<RepairItem> found;
                      for (const Reply& row : reply->elements) {
                          std::optional<RepairItem> item = itemFromRow(run->schema, row);
                          if (!item)
                              continue;
                          if (item->status == QLatin1String("skipped")) // only keys without a TTL
                              ++run->report.skipped;
                          if (item->status != QLatin1String("would_fix") &&
                              item->status != QLatin1String("fixed"))
                              continue;
                          ++run->report.totals.found;
                          if (item->status == QLatin1String("fixed"))
                              ++run->report.totals.fixed;
                          if (qint64(run->report.items.size()) < run->options.maxItems)
                              run->report.items.push_back(*item);
                          if (run->options.onFound)
                              found.push_back(std::move(*item));
                      }
                      if (!found.empty() && !run->stop)
                          run->options.onFound(found);
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
    auto run = startJob<RepairRun>(m_client, m_schema, options, std::move(progress), context,
                                   std::move(done));
    if (!run)
        return;

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

namespace {

// fixKeys(): one user's keys after the other, on the worker thread.
struct FixRun : RepairJob
{
    QList<QList<QByteArray>> groups;
};

void fixNextGroup(const std::shared_ptr<FixRun>& run)
{
    if (run->groups.isEmpty() || run->report.cancelled) {
        finish(run->client, run->schema, run->options, run->report, std::nullopt, run->context,
               run->done);
        return;
    }
    const QList<QByteArray> keys = run->groups.takeFirst();
    runScript(run->client, QStringLiteral("repair"), keys, {QByteArrayLiteral("fix")}, nullptr,
              [run, keys](Result<Reply> reply) {
                  if (!reply) {
                      finish(run->client, run->schema, run->options, run->report, reply.error(),
                             run->context, run->done);
                      return;
                  }
                  run->report.totals.scanned += keys.size();
                  for (const Reply& row : reply->elements) {
                      std::optional<RepairItem> item = itemFromRow(run->schema, row);
                      if (!item)
                          continue;
                      if (item->status == QLatin1String("fixed")) {
                          ++run->report.totals.found;
                          ++run->report.totals.fixed;
                      }
                      run->report.items.push_back(std::move(*item));
                  }
                  if (run->progress && !run->progress(run->report.totals))
                      run->report.cancelled = true;
                  fixNextGroup(run);
              });
}

} // namespace

void Repair::fixKeys(const QList<QByteArray>& keys, const RepairOptions& options,
                     ProgressFn progress, Context context, Callback<RepairReport> done) const
{
    RepairOptions fix = options;
    fix.fix = true;
    auto run =
        startJob<FixRun>(m_client, m_schema, fix, std::move(progress), context, std::move(done));
    if (!run)
        return;
    QMap<QByteArray, QList<QByteArray>> groups;
    for (const QByteArray& key : keys)
        if (!groups[hashTag(key)].contains(key))
            groups[hashTag(key)] << key;
    run->groups = groups.values();
    fixNextGroup(run);
}

} // namespace tollgate
