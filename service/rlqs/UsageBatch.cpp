#include "service/rlqs/UsageBatch.h"

#include "core/policies/ZoneOffsets.h"
#include "core/scripts/ScriptRunner.h"

#include <QMutex>
#include <algorithm>
#include <map>
#include <memory>

namespace tollgate::service {

namespace {

// The keys and arguments of one bucket (lua/README.md, "usage.lua").
void append(const KeySchema& schema, const UsageItem& item, Command& keys, Command& args)
{
    const Policy& policy = item.policy;
    keys << schema.userBanKey(item.user) << schema.actionBanKey(item.user, policy.action)
         << schema.overridesKey(item.user);
    QByteArray offsets = "0";
    if (policy.calendarAligned) {
        if (auto zone = zoneOffsetsAroundNow(policy.timeZone))
            offsets = *zone;
    }
    const auto bounded = [](qint64 n) { return QByteArray::number(std::clamp<qint64>(n, 0, Policy::kMaxLimit)); };
    args << item.user << policy.action << bounded(item.allowed) << bounded(item.denied)
         << (policy.countDenied ? "1" : "0") << (policy.calendarAligned ? "calendar" : "first_hit")
         << offsets << QByteArray::number(qint64(policy.windows.size()));
    for (const WindowLimit& w : policy.windows) {
        keys << schema.stateKey(item.user, policy.action, policy.algorithm, w.windowMs);
        args << QByteArray::number(w.limit) << QByteArray::number(w.windowMs);
    }
}

Result<std::vector<UsageState>> statesOf(const Reply& reply, size_t count)
{
    if (!reply.isArray() || reply.elements.size() != 6 * count)
        return Error{ErrorKind::Protocol, QStringLiteral("malformed reply from usage.lua")};
    std::vector<UsageState> states(count);
    for (size_t i = 0; i < count; ++i) {
        const auto number = [&](size_t k) { return reply.elements[6 * i + k].toInteger().value_or(0); };
        const QByteArray state = reply.elements[6 * i].toBytes();
        UsageState& out = states[i];
        out.state = state == "banned"   ? UsageState::State::Banned
                    : state == "exempt" ? UsageState::State::Exempt
                                        : UsageState::State::Ok;
        out.count = number(1);
        out.limit = number(2);
        out.remaining = number(3);
        out.resetMs = number(4);
        out.banMs = number(5);
    }
    return states;
}

} // namespace

void addUsage(Client* client, const KeySchema& schema, std::vector<UsageItem> items,
              Callback<std::vector<UsageState>> done)
{
    if (items.empty()) {
        done(std::vector<UsageState>{});
        return;
    }
    // The calls: one in all, or one per subject on a cluster (each in its user's slot).
    std::map<QByteArray, std::vector<size_t>> groups;
    for (size_t i = 0; i < items.size(); ++i)
        groups[client->isCluster() ? items[i].user : QByteArray()].push_back(i);

    struct Pending
    {
        QMutex mutex;
        std::vector<UsageState> states;
        std::optional<Error> error;
        size_t left = 0;
        Callback<std::vector<UsageState>> done;
    };
    auto pending = std::make_shared<Pending>();
    pending->states.resize(items.size());
    pending->left = groups.size();
    pending->done = std::move(done);
    for (const auto& [user, indexes] : groups) {
        Command keys, args;
        for (size_t i : indexes)
            append(schema, items[i], keys, args);
        runScript(client, QStringLiteral("usage"), keys, args, nullptr,
                  [pending, indexes = indexes](Result<Reply> reply) {
                      auto states = reply ? statesOf(*reply, indexes.size())
                                          : Result<std::vector<UsageState>>(reply.error());
                      bool last = false;
                      {
                          QMutexLocker lock(&pending->mutex);
                          if (!states && !pending->error)
                              pending->error = states.error();
                          for (size_t k = 0; states && k < indexes.size(); ++k)
                              pending->states[indexes[k]] = (*states)[k];
                          last = --pending->left == 0;
                      }
                      if (!last)
                          return;
                      if (pending->error)
                          pending->done(*pending->error);
                      else
                          pending->done(std::move(pending->states));
                  });
    }
}

} // namespace tollgate::service
