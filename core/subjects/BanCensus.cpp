#include "core/subjects/BanCensus.h"

#include "core/client/Scan.h"
#include "core/subjects/FingerprintSet.h"

#include <optional>

namespace tollgate {

namespace {

using Kind = KeySchema::Parsed::Kind;
const QByteArray kExpireTime = QByteArrayLiteral("PEXPIRETIME");

// One pass, touched only on the client's worker thread (the scan hands out one batch at a
// time and waits for its release).
struct CensusRun
{
    Client* client = nullptr;
    KeySchema schema;
    std::shared_ptr<std::atomic<bool>> cancelled;
    Context context;
    Callback<BanCensusResult> done;
    FingerprintSet seen;
    BanCensusResult result;
    std::optional<Error> error;
    bool reading = false;                  // a batch's PEXPIRETIME is out
    std::optional<Result<qint64>> scanned; // the scan's end
    bool finished = false;

    void maybeFinish()
    {
        if (finished || reading || !scanned)
            return;
        finished = true;
        if (!*scanned)
            deliver(context, done, Result<BanCensusResult>(scanned->error()));
        else if (error)
            deliver(context, done, Result<BanCensusResult>(*error));
        else
            deliver(context, done, Result<BanCensusResult>(std::move(result)));
    }
};

// The ban a key is, if it is one.
std::optional<SubjectKey> banOf(const KeySchema& schema, const QByteArray& key)
{
    const KeySchema::Parsed parsed = schema.parse(key);
    if (parsed.kind == Kind::ActionBan)
        return SubjectKey{parsed.user, parsed.action};
    if (parsed.kind == Kind::UserBan)
        return SubjectKey{parsed.user, QByteArray()};
    return std::nullopt;
}

QByteArray banKey(const KeySchema& schema, const SubjectKey& ban)
{
    return ban.second.isEmpty() ? schema.userBanKey(ban.first)
                                : schema.actionBanKey(ban.first, ban.second);
}

// PEXPIRETIME of each ban, in order; `done` runs on the worker thread.
void readEnds(Client* client, const KeySchema& schema, std::vector<SubjectKey> bans,
              std::function<void(Result<std::vector<BanEnd>>)> done)
{
    if (bans.empty()) {
        done(std::vector<BanEnd>());
        return;
    }
    std::vector<Command> commands;
    commands.reserve(bans.size());
    for (const SubjectKey& ban : bans)
        commands.push_back({kExpireTime, banKey(schema, ban)});
    client->executeBatch(std::move(commands), nullptr,
                         [bans = std::move(bans), done](std::vector<Result<Reply>> replies) {
                             std::vector<BanEnd> ends;
                             ends.reserve(bans.size());
                             for (size_t i = 0; i < bans.size(); ++i) {
                                 if (!replies[i]) {
                                     done(replies[i].error());
                                     return;
                                 }
                                 ends.push_back({bans[i].first, bans[i].second,
                                                 replies[i]->toInteger().value_or(-2)});
                             }
                             done(std::move(ends));
                         });
}

} // namespace

BanCensus::BanCensus(Client* client, KeySchema schema)
    : m_client(client), m_schema(std::move(schema))
{
}

QByteArray BanCensus::pattern() const
{
    return m_schema.prefix() + ":{*:ban";
}

void BanCensus::run(std::chrono::milliseconds pause, std::shared_ptr<std::atomic<bool>> cancelled,
                    Context context, Callback<BanCensusResult> done) const
{
    auto run = std::make_shared<CensusRun>();
    run->client = m_client;
    run->schema = m_schema;
    run->cancelled = std::move(cancelled);
    run->context = std::move(context);
    run->done = std::move(done);
    ScanOptions scan;
    scan.pattern = pattern();
    scan.type = QByteArrayLiteral("hash");
    scan.count = 1000;
    scan.pause = pause;
    scan.stop = run->cancelled;
    m_client->whenModeKnown(nullptr, [run, scan] {
        scanKeysPaced(
            run->client, scan, 1,
            [run](const QList<QByteArray>& keys, ScanRelease release) {
                std::vector<SubjectKey> fresh;
                for (const QByteArray& key : keys) {
                    ++run->result.keysScanned;
                    if (auto ban = banOf(run->schema, key);
                        ban && run->seen.insert(ban->first, ban->second))
                        fresh.push_back(std::move(*ban));
                }
                run->reading = true;
                readEnds(run->client, run->schema, std::move(fresh),
                         [run, release](Result<std::vector<BanEnd>> ends) {
                             run->reading = false;
                             if (!ends)
                                 run->error = ends.error();
                             else
                                 for (BanEnd& end : *ends)
                                     if (end.endMs != -2) // expired since SCAN saw it
                                         run->result.bans.push_back(std::move(end));
                             release();
                             run->maybeFinish();
                         });
                return !run->cancelled->load() && !run->error;
            },
            [run](Result<qint64> scanned) {
                run->scanned = std::move(scanned);
                run->maybeFinish();
            });
    });
}

void BanCensus::read(const std::vector<SubjectKey>& bans, Context context,
                     Callback<std::vector<BanEnd>> done) const
{
    readEnds(m_client, m_schema, bans, [context, done](Result<std::vector<BanEnd>> ends) {
        deliver(context, done, std::move(ends));
    });
}

void ActiveBans::replace(const std::vector<BanEnd>& bans)
{
    m_actions.clear();
    for (const BanEnd& ban : bans)
        apply(ban);
}

void ActiveBans::remove(PerAction& entry, const QByteArray& user)
{
    auto it = entry.users.find(user);
    if (it == entry.users.end())
        return;
    if (it->second == -1)
        --entry.permanent;
    else if (auto end = entry.ends.find(it->second); end != entry.ends.end())
        entry.ends.erase(end); // not there when it ended and was pruned already
    entry.users.erase(it);
}

void ActiveBans::apply(const BanEnd& ban)
{
    PerAction& entry = m_actions[ban.action];
    remove(entry, ban.user);
    if (ban.endMs == -2 || (ban.endMs >= 0 && ban.endMs <= entry.prunedTo))
        return;
    entry.users.emplace(ban.user, ban.endMs);
    if (ban.endMs == -1)
        ++entry.permanent;
    else
        entry.ends.insert(ban.endMs);
}

qint64 ActiveBans::count(const QByteArray& action, qint64 nowMs)
{
    auto found = m_actions.find(action);
    if (found == m_actions.end())
        return 0;
    PerAction& entry = found->second;
    // A ban is in force while its PTTL is above 0: one ending at `nowMs` is over.
    while (!entry.ends.empty() && *entry.ends.begin() <= nowMs)
        entry.ends.erase(entry.ends.begin());
    entry.prunedTo = std::max(entry.prunedTo, nowMs);
    return entry.permanent + qint64(entry.ends.size());
}

std::vector<QByteArray> ActiveBans::actions() const
{
    std::vector<QByteArray> actions;
    for (const auto& entry : m_actions)
        actions.push_back(entry.first);
    return actions;
}

} // namespace tollgate
