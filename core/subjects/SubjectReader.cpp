#include "core/subjects/SubjectReader.h"

#include "core/client/ClientInternals.h"
#include "core/limiter/PreparedHit.h"
#include "core/scripts/ScriptRunner.h"
#include "core/subjects/Usage.h"
#include "tollgate/Limiter.h"

#include <algorithm>
#include <map>

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
    std::vector<int> first; // index of the subject's first command, -1 = none
    // The policy whose counters were read as they are (no hit.lua peek), or null.
    std::vector<const Policy*> rawPolicy;
    // One EXISTS over the ban keys and overrides of a few subjects: its command, and its
    // subjects as a range of banMembers.
    struct BanGroup
    {
        size_t command = 0;
        size_t from = 0;
        size_t count = 0;
    };
    std::vector<BanGroup> banGroups;
    std::vector<size_t> banMembers;
    std::vector<size_t> mayHaveBans; // named by the caller instead of found by EXISTS
    int pending = 0; // batches and peeks still out
    // What the read cost the server, counted as the client's load figure counts it (a
    // script's inner commands estimated): the measure a paced caller budgets by.
    quint64 commands = 0;
    SubjectReader::CountedDone done;

    void finishOne()
    {
        if (--pending == 0 && done)
            done(std::move(subjects), commands);
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
        run->commands += 1 + estimatedScriptWork(PreparedHit::fullFormKeys(rule.windows.size()));
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
    run->commands += commands.size();
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
                if (run->rawPolicy[banned[n]] && hasOverride && hasOverride->integer > 0)
                    overridden.push_back(banned[n]);
            }
            peekSubjects(run, overridden);
            run->finishOne();
        });
}

void applyRaw(const std::shared_ptr<ReadRun>& run, std::vector<Result<Reply>>& replies)
{
    std::vector<size_t> banned = std::move(run->mayHaveBans);
    std::vector<WindowReading> windows; // one subject's, reused
    for (size_t i = 0; i < run->subjects.size(); ++i) {
        Subject& s = run->subjects[i];
        int at = run->first[i];
        if (at < 0)
            continue;
        if (s.action.isEmpty()) { // a user-wide ban row: its HGETALL
            applyBan(s, run->schema.userBanKey(s.user), replies[size_t(at)], s.userBan);
            continue;
        }
        const Policy* policy = run->rawPolicy[i];
        if (!policy)
            continue;
        windows.resize(policy->windows.size());
        bool good = true;
        for (size_t w = 0; w < windows.size(); ++w) {
            const Result<Reply>& value = replies[size_t(at++)];
            const Result<Reply>& pttl = replies[size_t(at++)];
            const std::optional<qint64> count = value && value->isNil()
                                                    ? std::optional<qint64>(0)
                                                    : (value ? value->toInteger() : std::nullopt);
            if (!value || !pttl || !count || *count < 0) {
                // Named only here: building every key again for every row would cost more
                // than reading it.
                const QByteArray key = run->schema.stateKey(s.user, s.action, policy->algorithm,
                                                            policy->windows[w].windowMs);
                s.error = value ? (pttl ? QString::fromUtf8(key) +
                                              QStringLiteral(": holds \"%1\", expected a counter")
                                                  .arg(QString::fromUtf8(value->toBytes().left(40)))
                                        : keyError(key, pttl.error()))
                                : keyError(key, value.error());
                good = false;
                break;
            }
            windows[w] = {*count, pttl->integer};
        }
        if (!good)
            continue;
        s.state = usageFromCounters(windows, *policy, false);
        s.stateKnown = true;
    }
    for (const ReadRun::BanGroup& group : run->banGroups) {
        const Result<Reply>& exists = replies[group.command];
        // A failed EXISTS reads the bans anyway: their own replies then carry the error.
        if (!exists || exists->integer > 0)
            banned.insert(banned.end(), run->banMembers.begin() + qsizetype(group.from),
                          run->banMembers.begin() + qsizetype(group.from + group.count));
    }
    readBans(run, banned);
}

// What every subject of one action needs, worked out once per read instead of once per
// subject: its policy (or why it has none) and the suffixes of its keys.
struct ActionPlan
{
    const Policy* rule = nullptr;     // the valid policy, null = none
    const QString* invalid = nullptr; // why the action's policy is invalid, null = it is not
    QByteArray banSuffix;
    std::vector<QByteArray> stateSuffixes; // one per window of `rule`
};

class ActionPlans
{
public:
    explicit ActionPlans(const PolicyCatalog& catalog) : m_catalog(catalog) {}

    const ActionPlan& of(const QByteArray& action)
    {
        if (m_last && m_lastAction == action) // a batch is mostly one action after another
            return *m_last;
        auto it = m_plans.find(action);
        if (it == m_plans.end()) {
            ActionPlan plan;
            plan.banSuffix = KeySchema::actionBanSuffix(action);
            auto invalid = m_catalog.invalid.find(action);
            if (invalid != m_catalog.invalid.end())
                plan.invalid = &invalid->second;
            auto valid = m_catalog.valid.find(action);
            if (valid != m_catalog.valid.end()) {
                plan.rule = &valid->second;
                for (const WindowLimit& w : plan.rule->windows)
                    plan.stateSuffixes.push_back(
                        KeySchema::stateSuffix(action, plan.rule->algorithm, w.windowMs));
            }
            it = m_plans.emplace(action, std::move(plan)).first;
        }
        m_lastAction = action;
        m_last = &it->second;
        return *m_last;
    }

private:
    const PolicyCatalog& m_catalog;
    std::map<QByteArray, ActionPlan> m_plans;
    QByteArray m_lastAction;
    const ActionPlan* m_last = nullptr;
};

} // namespace

SubjectReader::SubjectReader(Client* client, KeySchema schema,
                             std::shared_ptr<const PolicyCatalog> policies)
    : m_client(client), m_schema(std::move(schema)), m_policies(std::move(policies))
{
}

void SubjectReader::read(const std::vector<SubjectKey>& keys, Mode mode,
                         std::function<void(std::vector<Subject>)> done) const
{
    readCounted(keys, mode,
                [done = std::move(done)](std::vector<Subject> subjects, quint64) {
                    done(std::move(subjects));
                });
}

void SubjectReader::readCounted(const std::vector<SubjectKey>& keys, Mode mode, CountedDone done,
                                const std::vector<bool>* mayHaveBans) const
{
    auto run = std::make_shared<ReadRun>();
    run->client = m_client;
    run->schema = m_schema;
    run->policies = m_policies;
    run->done = std::move(done);
    run->subjects.resize(keys.size());
    run->first.assign(keys.size(), -1);
    run->rawPolicy.assign(keys.size(), nullptr);
    run->pending = 2; // the batch (with its ban round) and the sending loop below
    std::vector<size_t> peeks;
    // On a cluster one command may only touch one slot: one user's two ban keys.
    const size_t banGroup = m_client->keysInOneSlot() ? 1 : kBanGroup;
    // The whole batch is written straight into one buffer: no command, key or callback of
    // its own per read (a million subjects are three million reads).
    PipelineBuilder pipeline(qsizetype(keys.size()) * 160);
    ActionPlans plans(*m_policies);
    std::vector<std::pair<size_t, QByteArray>> group; // (subject, its keys' base) awaiting EXISTS
    auto checkBans = [&] {
        run->banGroups.push_back({size_t(pipeline.count()), run->banMembers.size(), group.size()});
        pipeline.command(1 + 3 * qsizetype(group.size())).add("EXISTS");
        for (const auto& [i, base] : group) {
            pipeline.addParts({base, plans.of(run->subjects[i].action).banSuffix})
                .addParts({base, KeySchema::kUserBanSuffix})
                .addParts({base, KeySchema::kOverridesSuffix});
            run->banMembers.push_back(i);
        }
        group.clear();
    };
    for (size_t i = 0; i < keys.size(); ++i) {
        Subject& s = run->subjects[i];
        s.user = keys[i].first;
        s.action = keys[i].second;
        run->first[i] = int(pipeline.count());
        QByteArray base = m_schema.userBase(s.user);
        if (s.action.isEmpty()) {
            pipeline.command(2).add("HGETALL").addParts({base, KeySchema::kUserBanSuffix});
            continue;
        }
        const ActionPlan& plan = plans.of(s.action);
        if (plan.invalid)
            s.error = *plan.invalid;
        if (plan.rule) {
            s.hasPolicy = true;
            if (mode == Mode::Peek || plan.rule->algorithm != Algorithm::FixedWindow) {
                peeks.push_back(i);
            } else {
                run->rawPolicy[i] = plan.rule;
                for (const QByteArray& suffix : plan.stateSuffixes) {
                    pipeline.command(2).add("GET").addParts({base, suffix});
                    pipeline.command(2).add("PTTL").addParts({base, suffix});
                }
            }
        }
        if (mayHaveBans) {
            if ((*mayHaveBans)[i])
                run->mayHaveBans.push_back(i);
            continue;
        }
        group.emplace_back(i, std::move(base));
        if (group.size() == banGroup)
            checkBans();
    }
    if (!group.empty())
        checkBans();
    const size_t commands = size_t(pipeline.count());
    run->commands += commands;
    if (commands == 0) {
        std::vector<Result<Reply>> none;
        applyRaw(run, none);
    } else if (Result<EncodedPipeline> built = std::move(pipeline).finish(); !built) {
        // Cannot happen (every command above is counted); if it did, every read says why.
        std::vector<Result<Reply>> failed(commands, built.error());
        applyRaw(run, failed);
    } else {
        ClientInternals::executePipeline(
            *m_client, std::move(*built), nullptr,
            [run](std::vector<Result<Reply>> replies) { applyRaw(run, replies); });
    }
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
