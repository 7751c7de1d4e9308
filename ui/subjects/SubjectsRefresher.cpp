#include "ui/subjects/SubjectsRefresher.h"

#include "core/limits/Usage.h"
#include "core/redis/Scan.h"

#include <QDeadlineTimer>
#include <QPointer>
#include <map>
#include <set>

namespace tollgate::ui {

/// The state of one pass. After start() it is touched only on the client's worker thread
/// (every callback below runs there, one at a time), so it needs no lock.
struct RefreshRun
{
    using Kind = KeySchema::Parsed::Kind;

    Session* session = nullptr; // outlives the pages; deliveries are queued on it
    Client* client = nullptr;
    KeySchema schema;
    SubjectsRefresher::Options options;
    QPointer<SubjectsRefresher> owner;
    std::shared_ptr<std::atomic<bool>> cancelled;
    QSet<SubjectKey> priority;

    std::map<SubjectKey, SubjectRow> rows;
    std::set<SubjectKey> actionBanKeys;
    std::set<QByteArray> userBanUsers;
    std::map<QByteArray, BanInfo> userBans;
    std::map<QByteArray, Policy> policies;
    std::vector<Policy> policyList;
    bool truncated = false;

    std::vector<SubjectRow*> order; // priority subjects first
    size_t priorityCount = 0;
    size_t next = 0;
    int inFlight = 0;
    int priorityInFlight = 0;
    bool partialSent = false;
    bool done = false;

    bool stopped() const { return cancelled->load(); }

    // Queues `deliver` to the GUI thread; dropped there if the refresher is gone or cancelled.
    void post(std::function<void(SubjectsRefresher*)> deliver)
    {
        QMetaObject::invokeMethod(
            session,
            [owner = owner, cancelled = cancelled, deliver = std::move(deliver)] {
                if (owner && !cancelled->load())
                    deliver(owner.data());
            },
            Qt::QueuedConnection);
    }

    void fail(const Error& error)
    {
        if (done)
            return;
        done = true;
        post([error](SubjectsRefresher* r) {
            r->m_running = false;
            Q_EMIT r->failed(error);
        });
    }

    void add(const QByteArray& user, const QByteArray& action)
    {
        SubjectRow& row = rows[{user, action}];
        row.user = user;
        row.action = action;
    }

    void onKeys(const QList<QByteArray>& keys)
    {
        for (const QByteArray& key : keys) {
            const KeySchema::Parsed parsed = schema.parse(key);
            if (parsed.kind == Kind::State) {
                add(parsed.user, parsed.action);
            } else if (parsed.kind == Kind::ActionBan) {
                add(parsed.user, parsed.action);
                actionBanKeys.insert({parsed.user, parsed.action});
            } else if (parsed.kind == Kind::UserBan) {
                add(parsed.user, QByteArray());
                userBanUsers.insert(parsed.user);
            }
        }
    }

    SubjectRow withUserBan(const SubjectRow& row) const
    {
        SubjectRow copy = row;
        auto ban = userBans.find(row.user);
        if (ban != userBans.end())
            copy.userBan = ban->second;
        return copy;
    }

    void startFetching(const std::shared_ptr<RefreshRun>& self)
    {
        for (auto& [key, row] : rows) {
            auto policy = policies.find(key.second);
            row.hasPolicy = policy != policies.end();
            if (priority.contains(key))
                order.push_back(&row);
        }
        priorityCount = order.size();
        for (auto& [key, row] : rows) {
            if (!priority.contains(key))
                order.push_back(&row);
        }
        // User-wide bans are few and manual: ask for all of them first. Replies come back in
        // command order on one connection, so they are in before any peek answers.
        for (const QByteArray& user : userBanUsers) {
            ++inFlight;
            client->execute({QByteArrayLiteral("HGETALL"), schema.userBanKey(user)}, nullptr,
                            [self, user](Result<Reply> reply) {
                                --self->inFlight;
                                if (reply && !reply->elements.empty())
                                    self->userBans[user] =
                                        Moderation::banFromFields(user, reply->toPairs());
                                self->pump(self);
                            });
        }
        pump(self);
    }

    void issue(const std::shared_ptr<RefreshRun>& self, SubjectRow* row, bool isPriority)
    {
        auto started = [this, isPriority] {
            ++inFlight;
            if (isPriority)
                ++priorityInFlight;
        };
        auto finished = [self, isPriority] {
            --self->inFlight;
            if (isPriority)
                --self->priorityInFlight;
            self->pump(self);
        };
        if (actionBanKeys.count(row->key())) {
            started();
            client->execute(
                {QByteArrayLiteral("HGETALL"), schema.actionBanKey(row->user, row->action)},
                nullptr, [row, finished](Result<Reply> reply) {
                    if (reply && !reply->elements.empty())
                        row->ban = Moderation::banFromFields(row->user, reply->toPairs());
                    finished();
                });
        }
        auto policy = policies.find(row->action);
        if (policy == policies.end())
            return;
        started();
        const Policy& rule = policy->second;
        Limiter(client, schema)
            .peek(rule, row->user, 0, nullptr, [row, rule, finished](Result<HitResult> state) {
                if (state) {
                    row->state = usageFromPeek(*state, rule);
                    row->stateKnown = true;
                    row->resetDeadline = QDeadlineTimer::current().deadline() + state->resetMs;
                } else {
                    row->error = state.error().toString();
                }
                finished();
            });
    }

    // Keeps at most options.chunk commands in flight; delivers when a stage completes.
    void pump(const std::shared_ptr<RefreshRun>& self)
    {
        if (done)
            return;
        if (stopped()) {
            done = true;
            return;
        }
        while (inFlight < options.chunk && next < order.size()) {
            // Advance first: a request that fails at once calls back into pump().
            const size_t current = next++;
            issue(self, order[current], current < priorityCount);
        }
        if (!partialSent && next >= priorityCount && priorityInFlight == 0) {
            partialSent = true;
            std::vector<SubjectRow> visible;
            for (size_t i = 0; i < priorityCount; ++i)
                visible.push_back(withUserBan(*order[i]));
            if (!visible.empty())
                post([visible](SubjectsRefresher* r) { Q_EMIT r->partial(visible); });
        }
        if (inFlight > 0 || next < order.size())
            return;
        done = true;
        std::vector<SubjectRow> all;
        all.reserve(rows.size());
        for (const auto& [key, row] : rows)
            all.push_back(withUserBan(row));
        post([all = std::move(all), policies = policyList,
              truncated = truncated](SubjectsRefresher* r) {
            r->m_running = false;
            Q_EMIT r->finished(all, policies, truncated);
        });
    }
};

SubjectsRefresher::SubjectsRefresher(Session* session, QObject* parent)
    : QObject(parent), m_session(session)
{
}

SubjectsRefresher::~SubjectsRefresher()
{
    if (m_cancelled)
        m_cancelled->store(true);
}

bool SubjectsRefresher::start(const QSet<SubjectKey>& priority)
{
    if (m_running)
        return false;
    m_running = true;
    m_cancelled = std::make_shared<std::atomic<bool>>(false);

    auto run = std::make_shared<RefreshRun>();
    run->session = m_session;
    run->client = m_session->client();
    run->schema = m_session->schema();
    run->options = m_options;
    run->owner = this;
    run->cancelled = m_cancelled;
    run->priority = priority;

    ScanOptions scan;
    scan.pattern = run->schema.allUsersPattern();
    scan.count = m_options.scanCount;
    scan.maxKeys = m_options.maxKeys;
    scan.pause = m_options.scanPause;
    scanKeys(
        run->client, scan,
        [run](const QList<QByteArray>& keys) {
            run->onKeys(keys);
            return !run->stopped();
        },
        [run](Result<qint64> scanned) {
            if (!scanned) {
                run->fail(scanned.error());
                return;
            }
            run->truncated = run->options.maxKeys > 0 && *scanned >= run->options.maxKeys;
            if (run->stopped())
                return;
            PolicyStore(run->client, run->schema)
                .list(nullptr, [run](Result<std::vector<Policy>> policies) {
                    if (!policies) {
                        run->fail(policies.error());
                        return;
                    }
                    run->policyList = *policies;
                    for (const Policy& policy : run->policyList)
                        run->policies.emplace(policy.action, policy);
                    run->startFetching(run);
                });
        });
    return true;
}

} // namespace tollgate::ui
