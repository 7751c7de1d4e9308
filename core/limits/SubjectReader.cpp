#include "core/limits/SubjectReader.h"

#include "core/limits/Limiter.h"
#include "core/limits/Usage.h"

#include <algorithm>

namespace tollgate {

namespace {

const QByteArray kHgetall = QByteArrayLiteral("HGETALL");

// One read in flight: the subjects, and where each one's replies sit in the batch.
struct ReadRun
{
    Client* client = nullptr;
    KeySchema schema;
    std::shared_ptr<const PolicyCatalog> policies;
    std::vector<Subject> subjects;
    std::vector<Command> commands;
    std::vector<int> first;    // index of the subject's first command, -1 = none
    std::vector<bool> rawRead; // its counters read as they are (no hit.lua peek)
    std::vector<std::vector<WindowReading>> windows;
    // One EXISTS over the ban keys and overrides of a few subjects: (its command, the subjects).
    std::vector<std::pair<size_t, std::vector<size_t>>> banGroups;
    int pending = 0; // batches and peeks still out
    std::function<void(std::vector<Subject>)> done;

    void finishOne()
    {
        if (--pending == 0 && done)
            done(std::move(subjects));
    }
};

QString keyError(const QByteArray& key, const Error& error)
{
    return QString::fromUtf8(key) + QStringLiteral(": ") + error.message;
}

void applyBan(Subject& subject, const QByteArray& key, const Result<Reply>& reply,
              std::optional<BanInfo>& into)
{
    if (!reply) {
        subject.error = keyError(key, reply.error());
        return;
    }
    if (reply->elements.empty())
        return;
    // hit.lua refuses a ban hash without a numeric until_ms (TG_CORRUPT): say so on the row.
    const auto fields = reply->toPairs();
    const bool valid = std::any_of(fields.begin(), fields.end(), [](const auto& field) {
        bool number = false;
        field.second.toLongLong(&number);
        return field.first == "until_ms" && number;
    });
    if (!valid) {
        subject.error =
            QString::fromUtf8(key) + QStringLiteral(": ban hash without a numeric until_ms");
        return;
    }
    into = Moderation::banFromFields(subject.user, fields);
}

// hit.lua peeks of the named subjects: their state as a hit would see it, override included.
void peekSubjects(const std::shared_ptr<ReadRun>& run, const std::vector<size_t>& subjects)
{
    const Limiter limiter(run->client, run->schema);
    for (size_t i : subjects) {
        ++run->pending;
        const Policy& rule = run->policies->valid.at(run->subjects[i].action);
        limiter.peek(rule, run->subjects[i].user, 0, nullptr,
                     [run, i, rule](Result<HitResult> peek) {
                         Subject& s = run->subjects[i];
                         if (peek) {
                             s.state = usageFromPeek(*peek, rule);
                             s.stateKnown = true;
                         } else {
                             s.error = peek.error().message;
                         }
                         run->finishOne();
                     });
    }
}

// Subjects whose ban keys and overrides hashes one EXISTS checks at once. Both are rare, so
// most groups answer 0 and cost one command for all their subjects instead of one each; the
// subjects of a group that answers more than 0 have their ban hashes read in the second round,
// and those read raw whose user has overrides are peeked (hit.lua applies the override: the
// raw counters alone would show the policy's limit, not the user's).
constexpr size_t kBanGroup = 8;

// Second round, only for the subjects of groups whose EXISTS found a ban key or overrides.
void readBans(const std::shared_ptr<ReadRun>& run, const std::vector<size_t>& banned)
{
    if (banned.empty()) {
        run->finishOne();
        return;
    }
    std::vector<Command> commands;
    for (size_t i : banned) {
        const Subject& s = run->subjects[i];
        commands.push_back({kHgetall, run->schema.actionBanKey(s.user, s.action)});
        commands.push_back({kHgetall, run->schema.userBanKey(s.user)});
        commands.push_back({QByteArrayLiteral("EXISTS"), run->schema.overridesKey(s.user)});
    }
    run->client->executeBatch(
        std::move(commands), nullptr, [run, banned](std::vector<Result<Reply>> replies) {
            std::vector<size_t> overridden;
            for (size_t n = 0; n < banned.size(); ++n) {
                Subject& s = run->subjects[banned[n]];
                applyBan(s, run->schema.actionBanKey(s.user, s.action), replies[3 * n], s.ban);
                applyBan(s, run->schema.userBanKey(s.user), replies[3 * n + 1], s.userBan);
                if (s.banned() && s.stateKnown) {
                    s.state.tier = Tier::Banned;
                    s.state.allowed = false;
                }
                const Result<Reply>& hasOverride = replies[3 * n + 2];
                if (run->rawRead[banned[n]] && hasOverride && hasOverride->integer > 0)
                    overridden.push_back(banned[n]);
            }
            peekSubjects(run, overridden);
            run->finishOne();
        });
}

void applyRaw(const std::shared_ptr<ReadRun>& run, std::vector<Result<Reply>>& replies)
{
    std::vector<size_t> banned;
    for (size_t i = 0; i < run->subjects.size(); ++i) {
        Subject& s = run->subjects[i];
        int at = run->first[i];
        if (at < 0)
            continue;
        if (s.action.isEmpty()) { // a user-wide ban row: its HGETALL
            applyBan(s, run->schema.userBanKey(s.user), replies[size_t(at)], s.userBan);
            continue;
        }
        auto policy = run->policies->valid.find(s.action);
        if (run->windows[i].empty() || policy == run->policies->valid.end())
            continue;
        bool good = true;
        for (size_t w = 0; w < run->windows[i].size(); ++w) {
            const Result<Reply>& value = replies[size_t(at++)];
            const Result<Reply>& pttl = replies[size_t(at++)];
            const std::optional<qint64> count = value && value->isNil()
                                                    ? std::optional<qint64>(0)
                                                    : (value ? value->toInteger() : std::nullopt);
            if (!value || !pttl || !count || *count < 0) {
                // Named only here: building every key again for every row would cost more
                // than reading it.
                const QByteArray key = run->schema.stateKey(
                    s.user, s.action, policy->second.algorithm, policy->second.windows[w].windowMs);
                s.error = value ? (pttl ? QString::fromUtf8(key) +
                                              QStringLiteral(": holds \"%1\", expected a counter")
                                                  .arg(QString::fromUtf8(value->toBytes().left(40)))
                                        : keyError(key, pttl.error()))
                                : keyError(key, value.error());
                good = false;
                break;
            }
            run->windows[i][w] = {*count, pttl->integer};
        }
        if (!good)
            continue;
        s.state = usageFromCounters(run->windows[i], policy->second, false);
        s.stateKnown = true;
    }
    for (const auto& [command, members] : run->banGroups) {
        const Result<Reply>& exists = replies[command];
        // A failed EXISTS reads the bans anyway: their own replies then carry the error.
        if (!exists || exists->integer > 0)
            banned.insert(banned.end(), members.begin(), members.end());
    }
    readBans(run, banned);
}

} // namespace

SubjectReader::SubjectReader(Client* client, KeySchema schema,
                             std::shared_ptr<const PolicyCatalog> policies)
    : m_client(client), m_schema(std::move(schema)), m_policies(std::move(policies))
{
}

void SubjectReader::read(const std::vector<SubjectKey>& keys, Mode mode,
                         std::function<void(std::vector<Subject>)> done) const
{
    auto run = std::make_shared<ReadRun>();
    run->client = m_client;
    run->schema = m_schema;
    run->policies = m_policies;
    run->done = std::move(done);
    run->subjects.resize(keys.size());
    run->first.assign(keys.size(), -1);
    run->rawRead.assign(keys.size(), false);
    run->windows.resize(keys.size());
    run->pending = 2; // the batch (with its ban round) and the sending loop below
    std::vector<size_t> peeks;
    std::vector<std::vector<size_t>> groups; // of kBanGroup subjects, for one EXISTS each
    std::vector<size_t> banMembers;
    // On a cluster one command may only touch one slot: one user's two ban keys.
    const size_t banGroup = m_client->isCluster() ? 1 : kBanGroup;
    for (size_t i = 0; i < keys.size(); ++i) {
        Subject& s = run->subjects[i];
        s.user = keys[i].first;
        s.action = keys[i].second;
        run->first[i] = int(run->commands.size());
        if (s.action.isEmpty()) {
            run->commands.push_back({kHgetall, m_schema.userBanKey(s.user)});
            continue;
        }
        banMembers.push_back(i);
        if (banMembers.size() == banGroup)
            groups.push_back(std::exchange(banMembers, {}));
        auto invalid = m_policies->invalid.find(s.action);
        if (invalid != m_policies->invalid.end())
            s.error = invalid->second;
        auto policy = m_policies->valid.find(s.action);
        if (policy == m_policies->valid.end())
            continue;
        s.hasPolicy = true;
        const Policy& rule = policy->second;
        if (mode == Mode::Peek || rule.algorithm != Algorithm::FixedWindow) {
            peeks.push_back(i);
            continue;
        }
        run->rawRead[i] = true;
        run->windows[i].resize(rule.windows.size());
        for (const WindowLimit& w : rule.windows) {
            const QByteArray key = m_schema.stateKey(s.user, s.action, rule.algorithm, w.windowMs);
            run->commands.push_back({QByteArrayLiteral("GET"), key});
            run->commands.push_back({QByteArrayLiteral("PTTL"), key});
        }
    }
    if (!banMembers.empty())
        groups.push_back(std::move(banMembers));
    for (std::vector<size_t>& members : groups) {
        Command exists{QByteArrayLiteral("EXISTS")};
        for (size_t i : members) {
            const Subject& s = run->subjects[i];
            exists << m_schema.actionBanKey(s.user, s.action) << m_schema.userBanKey(s.user)
                   << m_schema.overridesKey(s.user);
        }
        run->banGroups.emplace_back(run->commands.size(), std::move(members));
        run->commands.push_back(std::move(exists));
    }
    m_client->executeBatch(std::move(run->commands), nullptr,
                           [run](std::vector<Result<Reply>> replies) { applyRaw(run, replies); });
    peekSubjects(run, peeks);
    run->finishOne();
}

bool Subject::nearLimit() const
{
    return stateKnown && isNearLimit(state);
}

PolicyCatalog PolicyCatalog::from(const PolicyListing& listing)
{
    PolicyCatalog catalog;
    for (const Policy& policy : listing.policies)
        catalog.valid.emplace(policy.action, policy);
    for (const InvalidPolicy& bad : listing.invalid)
        catalog.invalid.emplace(bad.action, bad.reason);
    return catalog;
}

} // namespace tollgate
