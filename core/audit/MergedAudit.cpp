#include "core/audit/MergedAudit.h"

#include "core/client/ClientInternals.h"
#include "core/client/Scan.h"
#include "core/client/TwemproxyBackends.h"

#include <QMutex>
#include <algorithm>

namespace tollgate {

namespace {

bool newerFirst(const AuditEntry& a, const AuditEntry& b)
{
    return a.newerThan(b);
}

// The reads of one merge. A routing client may answer from several worker threads: locked.
struct Merge
{
    QMutex mutex;
    KeySchema schema;
    int count = 0;
    QByteArray afterId;           // only entries newer than this one; empty = all
    std::vector<AuditEntry> kept; // newest first, at most count
    int readsOut = 0;
    int scansOut = 1; // one per server scanned: the backends of a Twemproxy pool
    std::optional<Error> error;
    Context context;
    Callback<std::vector<AuditEntry>> done;

    // XREVRANGE start: only what could still make the cut.
    QByteArray oldestWanted() const
    {
        if (int(kept.size()) >= count)
            return '(' + kept.back().id;
        return afterId.isEmpty() ? QByteArrayLiteral("-") : '(' + afterId;
    }

    void add(std::vector<AuditEntry> entries)
    {
        kept.insert(kept.end(), std::make_move_iterator(entries.begin()),
                    std::make_move_iterator(entries.end()));
        if (int(kept.size()) > count) {
            std::nth_element(kept.begin(), kept.begin() + count, kept.end(), newerFirst);
            kept.resize(size_t(count));
        }
        std::sort(kept.begin(), kept.end(), newerFirst);
    }

    // Called with the mutex held.
    void finishIfDone()
    {
        if (scansOut > 0 || readsOut > 0 || !done)
            return;
        auto callback = std::exchange(done, nullptr);
        deliver(context, callback,
                error ? Result<std::vector<AuditEntry>>(*error)
                      : Result<std::vector<AuditEntry>>(std::move(kept)));
    }
};

void readBatch(Client* client, const std::shared_ptr<Merge>& merge, const QList<QByteArray>& keys)
{
    std::vector<Command> commands;
    QMutexLocker lock(&merge->mutex);
    const QByteArray start = merge->oldestWanted();
    for (const QByteArray& key : keys) {
        const auto kind = merge->schema.parse(key).kind;
        if (kind != KeySchema::Parsed::Kind::UserAudit && kind != KeySchema::Parsed::Kind::Audit)
            continue;
        commands.push_back({QByteArrayLiteral("XREVRANGE"), key, QByteArrayLiteral("+"), start,
                            QByteArrayLiteral("COUNT"), QByteArray::number(merge->count)});
    }
    if (commands.empty())
        return;
    ++merge->readsOut;
    lock.unlock();
    client->executeBatch(std::move(commands), nullptr, [merge](std::vector<Result<Reply>> replies) {
        std::vector<AuditEntry> entries;
        std::optional<Error> failed;
        for (const Result<Reply>& reply : replies) {
            if (!reply) {
                failed = reply.error();
                continue;
            }
            for (const Reply& element : reply->elements)
                entries.push_back(AuditEntry::fromStreamEntry(element));
        }
        QMutexLocker lock(&merge->mutex);
        --merge->readsOut;
        // A stream deleted or expired since SCAN simply reads empty; a failed read fails
        // the view rather than showing a history with silent holes.
        if (failed && !merge->error)
            merge->error = failed;
        merge->add(std::move(entries));
        merge->finishIfDone();
    });
}

} // namespace

void latestMergedAudit(Client* client, const KeySchema& schema, int count,
                       const QByteArray& afterId, Context context,
                       Callback<std::vector<AuditEntry>> done)
{
    auto merge = std::make_shared<Merge>();
    merge->schema = schema;
    merge->count = std::max(1, count);
    merge->afterId = afterId;
    merge->context = context;
    merge->done = std::move(done);
    ScanOptions scan;
    scan.pattern = schema.allAuditStreamsPattern();
    scan.type = QByteArrayLiteral("stream");
    scan.count = 1000;
    // Each server's streams are read where SCAN found them: a pool's backends one by one (the
    // proxy forwards neither SCAN nor XREVRANGE), a cluster's nodes through its router.
    std::vector<Client*> servers{client};
    if (TwemproxyBackends* backends = ClientInternals::twemproxyBackends(*client)) {
        if (backends->isEmpty()) {
            deliver(context, merge->done,
                    Result<std::vector<AuditEntry>>(
                        TwemproxyBackends::missing(QStringLiteral("The audit log"))));
            return;
        }
        servers.clear();
        for (int i = 0; i < backends->size(); ++i)
            servers.push_back(backends->at(i));
        merge->scansOut = int(servers.size());
    }
    for (Client* server : servers)
        scanKeys(
            server, scan,
            [server, merge](const QList<QByteArray>& keys) {
                readBatch(server, merge, keys);
                return true;
            },
            [merge](Result<qint64> scanned) {
                QMutexLocker lock(&merge->mutex);
                if (!scanned && !merge->error)
                    merge->error = scanned.error();
                --merge->scansOut;
                merge->finishIfDone();
            });
}

} // namespace tollgate
