#include "tollgate/Repair.h"

#include "core/client/ClientInternals.h"
#include "core/client/Scan.h"
#include "core/client/TwemproxyBackends.h"
#include "core/keys/KeyLayout.h"
#include "core/keys/KeyTypes.h"
#include "core/scripts/ScriptRunner.h"

#include <QMap>
#include <algorithm>

namespace tollgate {

namespace {

// The report, or the error that stopped the run. Each repair.lua call audits its own fixes
// atomically, so fixed keys are on record even when a later call failed.
void finish(const RepairReport& report, const std::optional<Error>& error, Context context,
            const Callback<RepairReport>& done)
{
    deliver(context, done, error ? Result<RepairReport>(*error) : Result<RepairReport>(report));
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
        finish(report, error, context, callback);
    }
};

// The audit stream "<p>:{<escaped user>}:audit" of a key "<p>:{<escaped user>}:...", whose keys
// share one Cluster slot; empty for a key of another shape (it is repaired on its own).
QByteArray userAuditStreamOf(const QByteArray& key)
{
    const int open = key.indexOf('{');
    const int close = open < 1 ? -1 : key.indexOf('}', open + 1);
    if (close < 0 || key.at(open - 1) != ':' || key.size() <= close + 1 || key.at(close + 1) != ':')
        return {};
    return key.left(close + 1) + ":audit";
}

// repair.lua calls for `keys`: one per user (KEYS[1] their audit stream), one per other key.
// Left out: the cluster's "{:}" keys (policies, their index and audit stream: no user's, never
// given a TTL, though SCAN <p>:{* finds them), and on a cluster the untagged keys, for which ""
// and the global stream lie in other slots (foreign keys, which repair.lua skips anyway).
QList<QList<QByteArray>> callsFor(const QList<QByteArray>& keys, const KeyLayout& layout)
{
    const QByteArray sharedStream = layout.schema().policyAuditKey(true);
    QMap<QByteArray, QList<QByteArray>> byUser;
    QList<QList<QByteArray>> calls;
    for (const QByteArray& key : keys) {
        const QByteArray stream = userAuditStreamOf(key);
        if (stream == sharedStream || (stream.isEmpty() && layout.isCluster()))
            continue;
        if (stream.isEmpty())
            calls.append({QByteArray(), layout.auditMirror({}), key});
        else if (!byUser[stream].contains(key))
            byUser[stream] << key;
    }
    for (auto it = byUser.cbegin(); it != byUser.cend(); ++it)
        calls.append(QList<QByteArray>{it.key(), layout.auditMirror(it.key())} + it.value());
    return calls;
}

// ARGV of a call: the mode, and with a fix who made it and why (its audit entry).
Command repairArgs(const RepairOptions& options)
{
    if (!options.fix)
        return {QByteArrayLiteral("dry")};
    return {QByteArrayLiteral("fix"), options.actor.toUtf8(), options.reason.toUtf8()};
}

// A found item: kept in the report up to maxItems, streamed to onFound.
void keep(const std::shared_ptr<RepairRun>& run, std::vector<RepairItem>& found, RepairItem item)
{
    if (qint64(run->report.items.size()) < run->options.maxItems)
        run->report.items.push_back(item);
    if (run->options.onFound)
        found.push_back(std::move(item));
}

// Of the keys repair.lua skipped, those with a place in our schema: is their TYPE another one?
// (repair.lua's reply does not say why it skipped a key.) Such a key makes every script
// touching it fail, and no TTL fixes it.
void checkTypes(const std::shared_ptr<RepairRun>& run, std::vector<RepairItem> skipped)
{
    skipped.erase(std::remove_if(skipped.begin(), skipped.end(),
                                 [](const RepairItem& item) {
                                     return expectedRedisType(item.parsed).isEmpty();
                                 }),
                  skipped.end());
    if (skipped.empty())
        return;
    std::vector<Command> commands;
    for (const RepairItem& item : skipped)
        commands.push_back({QByteArrayLiteral("TYPE"), item.key});
    ++run->pendingScripts;
    run->client->executeBatch(
        std::move(commands), nullptr,
        [run, skipped = std::move(skipped)](std::vector<Result<Reply>> types) mutable {
            --run->pendingScripts;
            std::vector<RepairItem> found;
            for (size_t i = 0; i < skipped.size() && i < types.size(); ++i) {
                if (!types[i])
                    continue; // gone or unreadable meanwhile: stays counted as skipped
                RepairItem& item = skipped[i];
                item.type = types[i]->toBytes();
                item.expectedType = wrongTypeExpected(run->schema, item.key, item.type);
                if (item.expectedType.isEmpty())
                    continue;
                item.status = QStringLiteral("wrong_type");
                --run->report.skipped;
                ++run->report.wrongType;
                keep(run, found, std::move(item));
            }
            if (!found.empty() && !run->stop)
                run->options.onFound(found);
            run->finishIfIdle();
        });
}

void checkCall(const std::shared_ptr<RepairRun>& run, const QList<QByteArray>& keys)
{
    ++run->pendingScripts;
    // A dry run writes nothing: EVALSHA_RO lets a read-only ACL user run it.
    const auto runRepair = run->options.fix ? runScript : runReadOnlyScript;
    runRepair(run->client, QStringLiteral("repair"), keys, repairArgs(run->options), nullptr,
              [run](Result<Reply> reply) {
                  --run->pendingScripts;
                  if (!reply) {
                      if (!run->error)
                          run->error = reply.error();
                      run->stop = true;
                  } else {
                      std::vector<RepairItem> found;
                      std::vector<RepairItem> skipped;
                      for (const Reply& row : reply->elements) {
                          std::optional<RepairItem> item = itemFromRow(run->schema, row);
                          if (!item)
                              continue;
                          if (item->status == QLatin1String("skipped")) { // only keys without a TTL
                              ++run->report.skipped;
                              skipped.push_back(std::move(*item));
                              continue;
                          }
                          if (item->status != QLatin1String("would_fix") &&
                              item->status != QLatin1String("fixed"))
                              continue;
                          ++run->report.totals.found;
                          if (item->status == QLatin1String("fixed"))
                              ++run->report.totals.fixed;
                          keep(run, found, std::move(*item));
                      }
                      if (!found.empty() && !run->stop)
                          run->options.onFound(found);
                      if (!run->stop)
                          checkTypes(run, std::move(skipped));
                      if (run->progress && !run->stop && !run->progress(run->report.totals)) {
                          run->stop = true;
                          run->report.cancelled = true;
                      }
                  }
                  run->finishIfIdle();
              });
}

void scanAndCheck(const std::shared_ptr<RepairRun>& run, const KeyLayout& layout)
{
    ScanOptions scan;
    scan.pattern = layout.schema().allUsersPattern();
    scan.count = qMax(1, run->options.scanCount);
    scan.pause = run->options.pause;
    scanKeys(
        run->client, scan,
        [run, layout](const QList<QByteArray>& batch) {
            if (run->stop)
                return false;
            run->report.totals.scanned += batch.size();
            for (const QList<QByteArray>& keys : callsFor(batch, layout))
                checkCall(run, keys);
            return true;
        },
        [run](Result<qint64> scanned) {
            if (!scanned && !run->error)
                run->error = scanned.error();
            run->scanFinished = true;
            run->finishIfIdle();
        });
}

} // namespace

Repair::Repair(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema)) {}

namespace {

// runOnBackends(): one backend after the other, each as a server of its own.
struct BackendsRun
{
    TwemproxyBackends* backends;
    KeySchema schema;
    RepairOptions options;
    Repair::ProgressFn progress;
    Context context;
    Callback<RepairReport> done;
    RepairReport merged; // the reports summed
};

void repairBackend(const std::shared_ptr<BackendsRun>& run, int index)
{
    if (index == run->backends->size() || run->merged.cancelled) {
        deliver(run->context, run->done, Result<RepairReport>(std::move(run->merged)));
        return;
    }
    const RepairProgress before = run->merged.totals;
    Repair::ProgressFn progressHere = [run, before](const RepairProgress& here) {
        if (!run->progress)
            return true;
        RepairProgress sum = before;
        sum.scanned += here.scanned;
        sum.found += here.found;
        sum.fixed += here.fixed;
        return run->progress(sum);
    };
    Repair(run->backends->at(index), run->schema)
        .run(run->options, progressHere, nullptr, [run, index](Result<RepairReport> report) {
            if (!report) {
                deliver(run->context, run->done, std::move(report));
                return;
            }
            RepairReport& merged = run->merged;
            for (RepairItem& item : report->items)
                if (qint64(merged.items.size()) < run->options.maxItems)
                    merged.items.push_back(std::move(item));
            merged.totals.scanned += report->totals.scanned;
            merged.totals.found += report->totals.found;
            merged.totals.fixed += report->totals.fixed;
            merged.skipped += report->skipped;
            merged.wrongType += report->wrongType;
            merged.cancelled = report->cancelled;
            repairBackend(run, index + 1);
        });
}

} // namespace

void Repair::runOnBackends(TwemproxyBackends* backends, const KeySchema& schema,
                           const RepairOptions& options, ProgressFn progress, Context context,
                           Callback<RepairReport> done)
{
    if (backends->isEmpty()) {
        deliver(context, done,
                Result<RepairReport>(TwemproxyBackends::missing(QStringLiteral("Repair"))));
        return;
    }
    repairBackend(std::make_shared<BackendsRun>(BackendsRun{backends, schema, options,
                                                            std::move(progress), context,
                                                            std::move(done), {}}),
                  0);
}

void Repair::run(const RepairOptions& options, ProgressFn progress, Context context,
                 Callback<RepairReport> done) const
{
    if (TwemproxyBackends* backends = ClientInternals::twemproxyBackends(*m_client)) {
        runOnBackends(backends, m_schema, options, std::move(progress), context, std::move(done));
        return;
    }
    auto run = startJob<RepairRun>(m_client, m_schema, options, std::move(progress), context,
                                   std::move(done));
    if (!run)
        return;

    KeyLayout::of(m_client, m_schema,
                  [run](const KeyLayout& layout) { scanAndCheck(run, layout); });
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
        finish(run->report, std::nullopt, run->context, run->done);
        return;
    }
    const QList<QByteArray> keys = run->groups.takeFirst();
    runScript(run->client, QStringLiteral("repair"), keys, repairArgs(run->options), nullptr,
              [run, candidates = keys.size() - 2](Result<Reply> reply) {
                  if (!reply) {
                      finish(run->report, reply.error(), run->context, run->done);
                      return;
                  }
                  run->report.totals.scanned += candidates;
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
    KeyLayout::of(m_client, m_schema, [run, keys](const KeyLayout& layout) {
        run->groups = callsFor(keys, layout);
        fixNextGroup(run);
    });
}

} // namespace tollgate
