#include "core/keys/PatternRepair.h"

#include "core/client/ClientInternals.h"
#include "core/client/Scan.h"
#include "core/client/TwemproxyBackends.h"
#include "core/cluster/KeySlot.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/ScriptRunner.h"

#include <QElapsedTimer>
#include <QMap>
#include <QMutex>

namespace tollgate {

namespace {

constexpr qint64 kMaxTtlMs = 10LL * 365 * 24 * 3600 * 1000; // repair_pattern.lua's MAX_TTL_MS

// An audit stream where a fix of the key can write its entry in the same script.
struct AuditStream
{
    QByteArray key;    // empty: none (the key is skipped)
    bool user = false; // a user's stream, else the global (or policy) one
};

AuditStream streamFor(const QByteArray& key, Client* server, const KeySchema& schema)
{
    // One server (a pool's backend directly too): any stream is beside any key.
    if (!server->isCluster())
        return {KeyLayout(schema, server->keysInOneSlot()).policyAuditKey()};
    // A cluster: the stream of the user the key's hash tag names is in the key's slot.
    const QByteArray tag = hashTagOf(key);
    const std::optional<QByteArray> user = KeySchema::unescape(tag);
    if (user && !user->isEmpty() && KeySchema::escape(*user) == tag)
        return {schema.userAuditKey(*user), true};
    const QByteArray shared = schema.policyAuditKey(true);
    if (keySlot(shared) == keySlot(key))
        return {shared};
    return {};
}

RepairItem itemOf(const KeySchema& schema, const QByteArray& key, const QByteArray& status,
                  qint64 ttlMs)
{
    RepairItem item;
    item.key = key;
    item.parsed = schema.parse(key);
    item.status = QString::fromLatin1(status);
    item.ttlMs = ttlMs;
    return item;
}

// One run: the servers one after the other, each scanned with one batch out at a time, so the
// pacing holds the scan too. Batches are checked on worker threads (a cluster's several):
// everything below the mutex.
struct PatternRun
{
    QMutex mutex;
    KeySchema schema;
    PatternRepairOptions options;
    Repair::ProgressFn progress;
    Context context;
    Callback<RepairReport> done;
    std::vector<Client*> servers;
    size_t server = 0;
    RepairReport report;
    std::optional<Error> error;
    bool stop = false;
    bool scanFinished = false;
    int batchesOut = 0;
    QElapsedTimer clock;
    qint64 paced = 0; // keys examined, for the rate

    // How long the batch just examined (n keys) must wait to keep the rate. Mutex held.
    std::chrono::milliseconds delayFor(qint64 n)
    {
        paced += n;
        if (options.rate <= 0)
            return std::chrono::milliseconds(0);
        const qint64 due = paced * 1000 / options.rate;
        return std::chrono::milliseconds(std::max<qint64>(0, due - clock.elapsed()));
    }
};

void startServer(const std::shared_ptr<PatternRun>& run);

// Mutex held: the next server, or the report, once this one's scan and batches are over.
bool serverOver(PatternRun& run)
{
    return run.scanFinished && run.batchesOut == 0;
}

void next(const std::shared_ptr<PatternRun>& run)
{
    QMutexLocker lock(&run->mutex);
    if (!serverOver(*run))
        return;
    ++run->server;
    if (run->server < run->servers.size() && !run->stop) {
        lock.unlock();
        startServer(run);
        return;
    }
    auto done = std::exchange(run->done, nullptr);
    lock.unlock();
    if (done)
        deliver(run->context, done,
                run->error ? Result<RepairReport>(*run->error) : Result<RepairReport>(run->report));
}

// A batch checked: its rows counted and streamed, progress told, the scan released after the
// rate's delay.
void batchDone(const std::shared_ptr<PatternRun>& run, Client* server, qint64 examined,
               std::vector<RepairItem> found, std::optional<Error> error, ScanRelease release)
{
    std::chrono::milliseconds delay;
    {
        QMutexLocker lock(&run->mutex);
        if (error && !run->error)
            run->error = error;
        if (error)
            run->stop = true;
        for (const RepairItem& item : found) {
            ++run->report.totals.found;
            if (item.status == QLatin1String("fixed"))
                ++run->report.totals.fixed;
            if (qint64(run->report.items.size()) < run->options.maxItems)
                run->report.items.push_back(item);
        }
        if (!found.empty() && run->options.onFound && !run->stop)
            run->options.onFound(found);
        if (run->progress && !run->stop && !run->progress(run->report.totals)) {
            run->stop = true;
            run->report.cancelled = true;
        }
        delay = run->delayFor(examined);
        --run->batchesOut;
    }
    // Released after the delay; the scan's next call waits for it.
    server->runLater(delay, [run, release] {
        release();
        next(run);
    });
}

void checkDry(const std::shared_ptr<PatternRun>& run, Client* server, qint64 examined,
              const QList<QByteArray>& keys, ScanRelease release)
{
    std::vector<Command> reads;
    for (const QByteArray& key : keys)
        reads.push_back({QByteArrayLiteral("PTTL"), key});
    server->executeBatch(std::move(reads), nullptr, [=](std::vector<Result<Reply>> replies) {
        std::vector<RepairItem> found;
        std::optional<Error> error;
        for (size_t i = 0; i < replies.size(); ++i) {
            if (!replies[i]) {
                error = replies[i].error();
                continue;
            }
            if (replies[i]->toInteger().value_or(0) == -1)
                found.push_back(
                    itemOf(run->schema, keys[qsizetype(i)], "would_fix", run->options.ttlMs));
        }
        batchDone(run, server, examined, std::move(found), error, release);
    });
}

void checkFix(const std::shared_ptr<PatternRun>& run, Client* server, qint64 examined,
              const QMap<QByteArray, QList<QByteArray>>& groups,
              const QMap<QByteArray, AuditStream>& streams, ScanRelease release)
{
    struct Calls
    {
        QMutex mutex;
        int out = 0;
        std::vector<RepairItem> found;
        std::optional<Error> error;
    };
    auto calls = std::make_shared<Calls>();
    calls->out = int(groups.size());
    const PatternRepairOptions& o = run->options;
    for (auto it = groups.cbegin(); it != groups.cend(); ++it) {
        const AuditStream& stream = streams[it.key()];
        Command keys{stream.key};
        keys << it.value();
        const Command args{QByteArray::number(o.ttlMs), o.actor.toUtf8(), o.reason.toUtf8(),
                           o.pattern,
                           stream.user ? QByteArrayLiteral("user") : QByteArrayLiteral("global")};
        runScript(server, QStringLiteral("repair_pattern"), keys, args, nullptr,
                  [=](Result<Reply> reply) {
                      QMutexLocker lock(&calls->mutex);
                      if (!reply && !calls->error)
                          calls->error = reply.error();
                      for (const Reply& row : reply ? reply->elements : std::vector<Reply>{})
                          if (row.elements.size() == 3 && row.elements[1].toBytes() == "fixed")
                              calls->found.push_back(
                                  itemOf(run->schema, row.elements[0].toBytes(), "fixed",
                                         row.elements[2].toInteger().value_or(0)));
                      if (--calls->out > 0)
                          return;
                      lock.unlock();
                      batchDone(run, server, examined, std::move(calls->found), calls->error,
                                release);
                  });
    }
}

void startServer(const std::shared_ptr<PatternRun>& run)
{
    Client* server = run->servers[run->server];
    {
        QMutexLocker lock(&run->mutex);
        run->scanFinished = false;
        run->batchesOut = 0;
    }
    ScanOptions scan;
    scan.pattern = run->options.pattern;
    scan.count = qMax(1, run->options.scanCount);
    if (run->options.rate > 0)
        scan.count = int(qMin<qint64>(scan.count, run->options.rate));
    const QByteArray ours = run->schema.prefix() + ':';
    scanKeysPaced(
        server, scan, 1,
        [run, server, ours](const QList<QByteArray>& keys, ScanRelease release) {
            QMap<QByteArray, QList<QByteArray>> groups; // by audit stream
            QMap<QByteArray, AuditStream> streams;
            QList<QByteArray> candidates;
            {
                QMutexLocker lock(&run->mutex);
                if (run->stop)
                    return false;
                run->report.totals.scanned += keys.size();
                for (const QByteArray& key : keys) {
                    const AuditStream stream =
                        key.startsWith(ours) ? AuditStream{} : streamFor(key, server, run->schema);
                    if (stream.key.isEmpty()) {
                        ++run->report.skipped;
                        continue;
                    }
                    candidates << key;
                    groups[stream.key] << key;
                    streams.insert(stream.key, stream);
                }
                ++run->batchesOut;
            }
            if (candidates.isEmpty())
                batchDone(run, server, keys.size(), {}, std::nullopt, release);
            else if (run->options.fix)
                checkFix(run, server, keys.size(), groups, streams, release);
            else
                checkDry(run, server, keys.size(), candidates, release);
            return true;
        },
        [run](Result<qint64> scanned) {
            {
                QMutexLocker lock(&run->mutex);
                if (!scanned && !run->error) {
                    run->error = scanned.error();
                    run->stop = true;
                }
                run->scanFinished = true;
            }
            next(run);
        });
}

} // namespace

PatternRepair::PatternRepair(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

Status PatternRepair::validate(const PatternRepairOptions& options, const KeySchema& schema)
{
    if (options.pattern.isEmpty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("a pattern is required (e.g. likes:*)")};
    if (options.pattern.startsWith(QByteArray(schema.prefix() + ':')))
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("keys under the prefix %1: are Tollgate's own: repair without "
                                    "a pattern gives them the TTL they need")
                         .arg(QString::fromUtf8(schema.prefix()))};
    if (options.ttlMs < 1 || options.ttlMs > kMaxTtlMs)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("the TTL to give must be between 1 ms and 10 years")};
    if (options.rate < 0)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("the rate is keys per second: 0 (no cap) or more")};
    if (options.fix && options.reason.trimmed().isEmpty())
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("a reason is required to repair keys")};
    return Unit{};
}

void PatternRepair::run(const PatternRepairOptions& options, Repair::ProgressFn progress,
                        Context context, Callback<RepairReport> done) const
{
    if (rejected(validate(options, m_schema), context, done))
        return;
    auto run = std::make_shared<PatternRun>();
    run->schema = m_schema;
    run->options = options;
    if (run->options.actor.trimmed().isEmpty())
        run->options.actor = QStringLiteral("tollgate");
    run->progress = std::move(progress);
    run->context = context;
    run->done = std::move(done);
    // A pool's keys are wherever an ejection left them: each backend directly.
    if (TwemproxyBackends* backends = ClientInternals::twemproxyBackends(*m_client)) {
        if (backends->isEmpty()) {
            deliver(context, run->done,
                    Result<RepairReport>(TwemproxyBackends::missing(QStringLiteral("Repair"))));
            return;
        }
        for (int i = 0; i < backends->size(); ++i)
            run->servers.push_back(backends->at(i));
    } else {
        run->servers.push_back(m_client);
    }
    run->clock.start();
    startServer(run);
}

} // namespace tollgate
