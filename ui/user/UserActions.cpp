#include "ui/user/UserActions.h"

#include "core/client/Scan.h"
#include "core/policies/Duration.h"
#include "core/subjects/Usage.h"
#include "ui/common/DisplayText.h"
#include "ui/user/Guarded.h"
#include "ui/user/RefusedRate.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <memory>

namespace tollgate::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("UserActions", text);
}

constexpr qint64 kUserScanCalls = 100; // SCAN calls of COUNT 1000: 100,000 keys examined at most

QByteArray windowLabel(Algorithm algorithm, qint64 windowMs)
{
    return algorithmCode(algorithm) + ' ' + formatDuration(windowMs).toUtf8();
}

// Shared by the callbacks of one load; the last one to finish delivers.
struct Load
{
    Session* session = nullptr;
    QByteArray user;
    QPointer<QObject> owner;
    std::function<void(UserActions)> done;
    UserActions result;
    QList<QByteArray> keys;
    int listsPending = 2; // keys and policies
    int peeksPending = 1; // held until every peek is sent

    void finishPeek()
    {
        if (--peeksPending == 0 && owner)
            done(std::move(result));
    }
};

void buildRows(const std::shared_ptr<Load>& load)
{
    UserActions& result = load->result;
    const KeySchema& schema = load->session->schema();
    result.userKeys = int(load->keys.size());
    result.scannedKeys = load->keys;
    for (const QByteArray& key : std::as_const(load->keys)) {
        const KeySchema::Parsed parsed = schema.parse(key);
        if (parsed.kind != KeySchema::Parsed::Kind::State &&
            parsed.kind != KeySchema::Parsed::Kind::ActionBan)
            continue;
        UserActionRow& row = result.rows[parsed.action];
        row.action = parsed.action;
        row.hasKeys = true;
        if (parsed.kind == KeySchema::Parsed::Kind::State)
            row.keyWindows << windowLabel(parsed.algorithm, parsed.windowMs);
    }
    for (const Policy& policy : result.policies) {
        UserActionRow& row = result.rows[policy.action];
        row.action = policy.action;
        row.policy = policy;
        // Keys the policy explains are not worth repeating; left-overs of an old policy are.
        for (const WindowLimit& window : policy.windows)
            row.keyWindows.removeAll(windowLabel(policy.algorithm, window.windowMs));
    }
}

// A banned row's rate is in no key of the user's: the statistics count its refused hits.
void readRate(const std::shared_ptr<Load>& load, const QByteArray& action)
{
    ++load->peeksPending;
    readRefusedRate(load->session, action, load->owner.data(),
                    [load, action](std::optional<double> perSecond) {
                        load->result.rows[action].refusedPerSecond = perSecond;
                        load->finishPeek();
                    });
}

void peekAll(const std::shared_ptr<Load>& load)
{
    buildRows(load);
    const Limiter limiter = load->session->limiter();
    for (auto& [action, row] : load->result.rows) {
        if (!row.policy)
            continue;
        ++load->peeksPending;
        const QByteArray name = action;
        const Policy rule = *row.policy;
        limiter.peek(
            rule, load->user, 0, load->session,
            guarded<HitResult>(load->owner.data(), [load, name, rule](Result<HitResult> state) {
                UserActionRow& row = load->result.rows[name];
                if (state) {
                    row.next = *state;
                    row.usage = usageFromPeek(*state, rule); // the one rule every view uses
                    row.hasKeys = row.hasKeys || row.usage->count > 0;
                    const qint64 steady = QDeadlineTimer::current().deadline();
                    row.resetDeadline = steady + state->resetMs;
                    if (state->tier == Tier::Banned) { // retry-after: the ban's end, -1 never
                        row.banDeadline =
                            state->retryAfterMs < 0 ? -1 : steady + state->retryAfterMs;
                        readRate(load, name);
                    }
                } else {
                    row.error = state.error().toString();
                    row.wrongType = state.error().kind == ErrorKind::WrongType;
                }
                load->finishPeek();
            }));
    }
    load->finishPeek();
}

// The user's own keys: every policy's row is addressed and peeked anyway, the SCAN only adds
// actions without a policy, so on a huge keyspace it stops after a budget instead of walking
// all of it.
void scanUserKeys(const std::shared_ptr<Load>& load, std::function<void()> listed)
{
    ScanOptions scan;
    scan.pattern = load->session->schema().userPattern(load->user);
    scan.count = 1000;
    scan.maxCalls = kUserScanCalls;
    collectKeys(
        load->session->client(), scan, load->session,
        guarded<QList<QByteArray>>(
            load->owner.data(), [load, listed](Result<QList<QByteArray>> keys) {
                if (!keys)
                    load->result.errors
                        << tr("Listing the user's keys failed: %1").arg(keys.error().toString());
                load->keys = keys ? *keys : QList<QByteArray>();
                listed();
            }));
}

} // namespace

void loadUserActions(Session* session, const QByteArray& user, QObject* owner, bool scan,
                     const UserActions& previous, std::function<void(UserActions)> done)
{
    auto load = std::make_shared<Load>();
    load->session = session;
    load->user = user;
    load->owner = owner;
    load->done = std::move(done);
    auto listed = [load] {
        if (--load->listsPending == 0)
            peekAll(load);
    };

    if (!scan) {
        load->keys = previous.scannedKeys;
        listed();
    } else {
        scanUserKeys(load, listed);
    }
    session->policies().list(
        session,
        guarded<std::vector<Policy>>(owner, [load, listed](Result<std::vector<Policy>> policies) {
            if (!policies)
                load->result.errors
                    << tr("Loading policies failed: %1").arg(policies.error().toString());
            load->result.policies = policies ? *policies : std::vector<Policy>();
            listed();
        }));
}

QString verdictText(const HitResult& next)
{
    // An override decides in hit.lua itself: the verdict says so, so support knows why.
    if (next.appliedOverride == AppliedOverride::Unlimited && next.tier != Tier::Banned)
        return tr("yes: exempt (override)");
    if (next.appliedOverride == AppliedOverride::Limit)
        return verdictWithoutOverride(next) + tr(" (override)");
    return verdictWithoutOverride(next);
}

QString verdictWithoutOverride(const HitResult& next)
{
    if (next.tier == Tier::Banned)
        return next.retryAfterMs < 0
                   ? tr("no: banned permanently")
                   : tr("no: banned (retry in %1)").arg(formatCountdown(next.retryAfterMs));
    if (!next.allowed)
        return tr("no: over the limit (retry in %1)").arg(formatCountdown(next.retryAfterMs));
    if (next.tier == Tier::Warn)
        return tr("yes, with a warning");
    return tr("yes");
}

} // namespace tollgate::ui
