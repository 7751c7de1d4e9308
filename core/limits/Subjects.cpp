#include "core/limits/Subjects.h"

#include "core/limits/Limiter.h"
#include "core/limits/PolicyStore.h"
#include "core/redis/Scan.h"

#include <map>
#include <set>

namespace tollgate {

namespace {

using Kind = KeySchema::Parsed::Kind;
using SubjectKey = std::pair<QByteArray, QByteArray>; // user, action

// Lives on the client's worker thread: every callback below runs there, one at a time.
struct SubjectsRun
{
    Client* client = nullptr;
    KeySchema schema;
    SubjectsOptions options;
    Context context = nullptr;
    Callback<SubjectList> done;

    std::map<SubjectKey, Subject> subjects;
    std::set<SubjectKey> withBanKey;     // an action ban key was seen
    std::set<QByteArray> withUserBanKey; // a user-wide ban key was seen
    std::map<QByteArray, BanInfo> userBans;
    SubjectList result;
    int pending = 0;
    std::optional<Error> error;

    void add(const QByteArray& user, const QByteArray& action)
    {
        if (subjects.count({user, action}))
            return;
        if (qint64(subjects.size()) >= options.maxSubjects) {
            result.truncated = true;
            return;
        }
        Subject subject;
        subject.user = user;
        subject.action = action;
        subjects.emplace(SubjectKey{user, action}, std::move(subject));
    }

    void finishIfIdle()
    {
        if (pending > 0 || !done)
            return;
        auto callback = std::move(done);
        done = nullptr;
        if (error) {
            deliver(context, callback, Result<SubjectList>(*error));
            return;
        }
        for (auto& [key, subject] : subjects) {
            auto userBan = userBans.find(key.first);
            if (userBan != userBans.end())
                subject.userBan = userBan->second;
            if (!subject.hasPolicy) { // no peek: say what we know
                subject.state.allowed = !subject.banned();
                subject.state.tier = subject.banned() ? Tier::Banned : Tier::Ok;
            }
            result.subjects.push_back(std::move(subject));
        }
        deliver(context, callback, Result<SubjectList>(std::move(result)));
    }
};

void fetchBan(const std::shared_ptr<SubjectsRun>& run, const QByteArray& key,
              std::function<void(const BanInfo&)> store, const QByteArray& user)
{
    ++run->pending;
    run->client->execute({QByteArrayLiteral("HGETALL"), key}, nullptr,
                         [run, store, user](Result<Reply> reply) {
                             --run->pending;
                             if (!reply && !run->error)
                                 run->error = reply.error();
                             else if (reply && !reply->elements.empty())
                                 store(Moderation::banFromFields(user, reply->toPairs()));
                             run->finishIfIdle();
                         });
}

void fetchStates(const std::shared_ptr<SubjectsRun>& run, const std::vector<Policy>& policies)
{
    std::map<QByteArray, Policy> byAction;
    for (const Policy& policy : policies)
        byAction.emplace(policy.action, policy);
    const Limiter limiter(run->client, run->schema);
    std::set<QByteArray> users;

    ++run->pending; // held until every request below is issued
    for (auto& [key, subject] : run->subjects) {
        const auto& [user, action] = key;
        users.insert(user);
        Subject* target = &subject; // std::map nodes are stable
        if (run->withBanKey.count(key))
            fetchBan(run, run->schema.actionBanKey(user, action),
                     [target](const BanInfo& ban) { target->ban = ban; }, user);
        auto policy = byAction.find(action);
        if (action.isEmpty() || policy == byAction.end())
            continue;
        target->hasPolicy = true;
        ++run->pending;
        const qint64 cost = policy->second.cost;
        limiter.peek(policy->second, user, 0, nullptr, [run, target, cost](Result<HitResult> state) {
            --run->pending;
            if (state) {
                target->state = *state;
                // peek answers with the count a hit would reach; show the count as it is now.
                if (state->allowed) {
                    target->state.count = qMax<qint64>(0, state->count - cost);
                    target->state.remaining = qMin(state->limit, state->remaining + cost);
                }
            } else
                target->error = state.error().message;
            run->finishIfIdle();
        });
    }
    // With an action filter SCAN never sees user-wide ban keys: ask for each user's.
    for (const QByteArray& user : users) {
        if (!run->options.action.isEmpty() || run->withUserBanKey.count(user))
            fetchBan(run, run->schema.userBanKey(user),
                     [run, user](const BanInfo& ban) { run->userBans[user] = ban; }, user);
    }
    --run->pending;
    run->finishIfIdle();
}

} // namespace

Subjects::Subjects(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema))
{
}

QByteArray Subjects::pattern(const QByteArray& action) const
{
    if (action.isEmpty())
        return m_schema.allUsersPattern();
    // Escaped ids hold no glob characters and no ':' or '}', so this matches only that action.
    return m_schema.prefix() + ":{*}:" + KeySchema::escape(action) + ":*";
}

void Subjects::list(const SubjectsOptions& options, Context context,
                    Callback<SubjectList> done) const
{
    if (!options.action.isEmpty()) {
        const Status valid = KeySchema::validateId(options.action, QStringLiteral("action"));
        if (rejected(valid, context, done))
            return;
    }
    auto run = std::make_shared<SubjectsRun>();
    run->client = m_client;
    run->schema = m_schema;
    run->options = options;
    run->options.maxSubjects = qMax<qint64>(1, options.maxSubjects);
    run->context = context;
    run->done = std::move(done);

    ScanOptions scan;
    scan.pattern = pattern(options.action);
    scan.count = qMax(1, options.scanCount);
    scanKeys(
        m_client, scan,
        [run](const QList<QByteArray>& batch) {
            run->result.scanned += batch.size();
            for (const QByteArray& key : batch) {
                const KeySchema::Parsed parsed = run->schema.parse(key);
                const bool wanted = run->options.action.isEmpty() || parsed.action == run->options.action;
                if (parsed.kind == Kind::State && wanted) {
                    run->add(parsed.user, parsed.action);
                } else if (parsed.kind == Kind::ActionBan && wanted) {
                    run->add(parsed.user, parsed.action);
                    run->withBanKey.insert({parsed.user, parsed.action});
                } else if (parsed.kind == Kind::UserBan && run->options.action.isEmpty()) {
                    run->add(parsed.user, QByteArray());
                    run->withUserBanKey.insert(parsed.user);
                }
            }
            return !run->result.truncated;
        },
        [run](Result<qint64> scanned) {
            if (!scanned) {
                run->error = scanned.error();
                run->finishIfIdle();
                return;
            }
            PolicyStore(run->client, run->schema)
                .list(nullptr, [run](Result<std::vector<Policy>> policies) {
                    if (!policies) {
                        run->error = policies.error();
                        run->finishIfIdle();
                        return;
                    }
                    fetchStates(run, *policies);
                });
        });
}

} // namespace tollgate
