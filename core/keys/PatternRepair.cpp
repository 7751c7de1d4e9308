#include "core/keys/PatternRepair.h"

#include "core/client/Scan.h"
#include "core/client/TwemproxyBackends.h"
#include "core/cluster/KeySlot.h"
#include "core/keys/KeyLayout.h"

#include <QElapsedTimer>
#include <QMap>
#include <QMutex>

namespace tollgate {

namespace {

// KEYS[1] the audit stream (on the keys' server or in their slot), KEYS[2..n] the candidates.
// ARGV: ttl_ms, actor, reason, pattern, the stream's MAXLEN, the stream's TTL in ms ("0": none).
// Reads first, then the audit entry (a stream of the wrong type fails the call before any
// write), then the fixes: a key that got a TTL since SCAN is left alone. Reply: one
// { key, status, ttl_ms } per candidate, status "fixed", "ok" (has a TTL) or "missing".
const QByteArray kFixScript = QByteArrayLiteral(R"lua(
local ttl, fixed, rows, named = ARGV[1], {}, {}, {}
for i = 2, #KEYS do
  local pttl = redis.call('PTTL', KEYS[i])
  local status = pttl == -1 and 'fixed' or (pttl == -2 and 'missing' or 'ok')
  if status == 'fixed' then
    fixed[#fixed + 1] = KEYS[i]
    if #named < 20 then named[#named + 1] = KEYS[i] end
    pttl = tonumber(ttl)
  end
  rows[#rows + 1] = { KEYS[i], status, pttl }
end
if #fixed == 0 then return rows end
local detail = 'pattern ' .. ARGV[4] .. ', ttl ' .. ttl .. ' ms: fixed=' .. #fixed .. ': ' ..
  table.concat(named, ', ')
if #fixed > #named then detail = detail .. ' and ' .. (#fixed - #named) .. ' more' end
local writes = { { 'XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], '*', 'event', 'repair', 'user', '',
  'action', '', 'actor', ARGV[2], 'reason', ARGV[3], 'until_ms', '0', 'detail', detail } }
if ARGV[6] ~= '0' then writes[#writes + 1] = { 'PEXPIRE', KEYS[1], ARGV[6] } end
for _, key in ipairs(fixed) do writes[#writes + 1] = { 'PEXPIRE', key, ttl } end
for _, cmd in ipairs(writes) do
  if not redis.acl_check_cmd(unpack(cmd)) then
    return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
      '; nothing was written')
  end
end
for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
return rows
)lua");

constexpr qint64 kMaxTtlMs = 10LL * 365 * 24 * 3600 * 1000;
constexpr qint64 kUserAuditLen = 1000;              // as lua/includes/audit.lua keeps them
constexpr qint64 kGlobalAuditLen = 100000;          // lua/includes/constants.lua
constexpr qint64 kUserAuditTtlMs = 7776000000;      // 90 days after the last entry

// An audit stream where a fix of the key can write its entry in the same script.
struct AuditStream
{
    QByteArray key; // empty: none (the key is skipped)
    qint64 maxLen = kGlobalAuditLen;
    qint64 ttlMs = 0;
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
        return {schema.userAuditKey(*user), kUserAuditLen, kUserAuditTtlMs};
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
    server->executeBatch(std::move(reads), nullptr,
                         [=](std::vector<Result<Reply>> replies) {
                             std::vector<RepairItem> found;
                             std::optional<Error> error;
                             for (size_t i = 0; i < replies.size(); ++i) {
                                 if (!replies[i]) {
                                     error = replies[i].error();
                                     continue;
                                 }
                                 if (replies[i]->toInteger().value_or(0) == -1)
                                     found.push_back(itemOf(run->schema, keys[qsizetype(i)],
                                                            "would_fix", run->options.ttlMs));
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
        Command eval{QByteArrayLiteral("EVAL"), kFixScript,
                     QByteArray::number(it.value().size() + 1), stream.key};
        eval << it.value();
        eval << QByteArray::number(o.ttlMs) << o.actor.toUtf8() << o.reason.toUtf8() << o.pattern
             << QByteArray::number(stream.maxLen) << QByteArray::number(stream.ttlMs);
        server->execute(eval, nullptr, [=](Result<Reply> reply) {
            QMutexLocker lock(&calls->mutex);
            if (!reply && !calls->error)
                calls->error = reply.error();
            for (const Reply& row : reply ? reply->elements : std::vector<Reply>{})
                if (row.elements.size() == 3 && row.elements[1].toBytes() == "fixed")
                    calls->found.push_back(itemOf(run->schema, row.elements[0].toBytes(), "fixed",
                                                  row.elements[2].toInteger().value_or(0)));
            if (--calls->out > 0)
                return;
            lock.unlock();
            batchDone(run, server, examined, std::move(calls->found), calls->error, release);
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
        return Error{ErrorKind::InvalidInput, QStringLiteral("a pattern is required (e.g. likes:*)")};
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
        return Error{ErrorKind::InvalidInput, QStringLiteral("a reason is required to repair keys")};
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
    if (TwemproxyBackends* backends = m_client->twemproxyBackends()) {
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
