#include "core/metrics/KeyCensus.h"

#include "core/client/Scan.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <algorithm>
#include <utility>

namespace tollgate {

namespace {

using Kind = KeySchema::Parsed::Kind;

// One pass's running figures. Touched only on the client's worker thread, one batch at a
// time (the scan hands out one batch and waits for its release).
struct Tally
{
    CensusResult result;
    // Subjects are deduplicated at the end: 8 bytes per key instead of a set of ids.
    std::map<QByteArray, std::vector<quint64>> users;
    std::optional<Error> error;
    QElapsedTimer clock;
    // The scan says it is done once it handed out its last batch, which may still be read:
    // the pass completes when both are over.
    int batchesOut = 0;
    std::optional<Result<qint64>> scanned;
    std::function<void()> complete;

    void maybeComplete()
    {
        if (scanned && batchesOut == 0 && complete)
            std::exchange(complete, nullptr)();
    }
};

bool needsTtl(Kind kind)
{
    return kind == Kind::State || kind == Kind::UserAudit;
}

// Bans without a TTL: only those with an end (until_ms > 0) should have one.
void checkBans(Client* client, const std::shared_ptr<Tally>& tally, QList<QByteArray> banKeys,
               ScanRelease release)
{
    if (banKeys.isEmpty()) {
        release();
        return;
    }
    std::vector<Command> reads;
    for (const QByteArray& key : banKeys)
        reads.push_back({QByteArrayLiteral("HGET"), key, QByteArrayLiteral("until_ms")});
    client->executeBatch(std::move(reads), nullptr,
                         [tally, release](std::vector<Result<Reply>> replies) {
                             for (const Result<Reply>& r : replies)
                                 if (r && r->toBytes().toLongLong() > 0)
                                     ++tally->result.keysWithoutTtl;
                             release();
                         });
}

void tallyBatch(Client* client, const KeySchema& schema, const std::shared_ptr<Tally>& tally,
                const QList<QByteArray>& keys, ScanRelease release)
{
    tally->result.keysScanned += keys.size();
    std::vector<KeySchema::Parsed> ours;
    std::vector<Command> ttls;
    QList<QByteArray> keyNames;
    for (const QByteArray& key : keys) {
        KeySchema::Parsed parsed = schema.parse(key);
        if (parsed.kind == Kind::Foreign)
            continue;
        ttls.push_back({QByteArrayLiteral("PTTL"), key});
        keyNames << key;
        ours.push_back(std::move(parsed));
    }
    if (ttls.empty()) {
        release();
        return;
    }
    client->executeBatch(
        std::move(ttls), nullptr,
        [client, tally, ours = std::move(ours), keyNames,
         release](std::vector<Result<Reply>> replies) {
            QList<QByteArray> bansWithoutTtl;
            for (size_t i = 0; i < replies.size(); ++i) {
                const KeySchema::Parsed& p = ours[i];
                if (!replies[i]) {
                    tally->error = replies[i].error();
                    continue;
                }
                const qint64 pttl = replies[i]->toInteger().value_or(0);
                if (pttl == -2)
                    continue; // expired between SCAN and PTTL
                const bool noTtl = pttl == -1;
                if (p.kind == Kind::State || p.kind == Kind::ActionBan)
                    tally->users[p.action].push_back(qHash(QByteArrayView(p.user), 0));
                if (p.kind == Kind::ActionBan)
                    ++tally->result.activeBans[{p.action, QByteArrayLiteral("action")}];
                if (p.kind == Kind::UserBan)
                    ++tally->result.activeBans[{QByteArrayLiteral("*"), QByteArrayLiteral("user")}];
                if (noTtl && needsTtl(p.kind))
                    ++tally->result.keysWithoutTtl;
                if (noTtl && (p.kind == Kind::ActionBan || p.kind == Kind::UserBan))
                    bansWithoutTtl << keyNames[static_cast<qsizetype>(i)];
            }
            checkBans(client, tally, bansWithoutTtl, release);
        });
}

} // namespace

KeyCensus::KeyCensus(Client* client, KeySchema schema, KeyCensusOptions options, QObject* parent)
    : QObject(parent), m_client(client), m_schema(std::move(schema)), m_options(options)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &KeyCensus::runPass);
}

void KeyCensus::start()
{
    m_timer.start(0);
}

void KeyCensus::runPass()
{
    auto tally = std::make_shared<Tally>();
    tally->clock.start();
    const Context self(this);
    // Runs once on the worker thread; the result goes back to this object's thread.
    tally->complete = [this, self, tally] {
        const Result<qint64>& total = *tally->scanned;
        Result<CensusResult> result =
            total ? Result<CensusResult>(tally->result) : Result<CensusResult>(total.error());
        if (total && tally->error)
            result = *tally->error;
        if (result) {
            for (auto& [action, users] : tally->users) {
                std::sort(users.begin(), users.end());
                result->subjects[action] = std::unique(users.begin(), users.end()) - users.begin();
            }
            result->durationSeconds = tally->clock.elapsed() / 1000.0;
            result->finishedMs = QDateTime::currentMSecsSinceEpoch();
        }
        self.post([this, result = std::move(result)]() mutable { finished(std::move(result)); });
    };

    ScanOptions scan;
    scan.pattern = m_schema.prefix() + ":*";
    scan.count = m_options.scanCount;
    scan.pause = m_options.pause;
    Client* client = m_client;
    const KeySchema schema = m_schema;
    m_client->whenModeKnown(nullptr, [client, schema, scan, tally] {
        scanKeysPaced(
            client, scan, 1,
            [client, schema, tally](const QList<QByteArray>& keys, ScanRelease release) {
                ++tally->batchesOut;
                tallyBatch(client, schema, tally, keys, [tally, release] {
                    release();
                    --tally->batchesOut;
                    tally->maybeComplete();
                });
                return true;
            },
            [tally](Result<qint64> total) {
                tally->scanned = std::move(total);
                tally->maybeComplete();
            });
    });
}

void KeyCensus::finished(Result<CensusResult> result)
{
    if (result) {
        m_last = std::move(*result);
        ++m_passes;
        Q_EMIT passFinished();
    } else {
        Q_EMIT passFailed(result.error());
    }
    m_timer.start(m_options.interval);
}

} // namespace tollgate
