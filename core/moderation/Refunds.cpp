#include "tollgate/Refunds.h"

#include "core/keys/KeyLayout.h"
#include "core/policies/ZoneOffsets.h"
#include "core/scripts/ScriptRunner.h"
#include "tollgate/Overrides.h"

namespace tollgate {

namespace {

Status validate(const Policy& policy, const QByteArray& user, qint64 cost)
{
    Status status = policy.validate();
    if (status)
        status = KeySchema::validateId(user, QStringLiteral("user id"));
    if (status && (cost < 0 || cost > Policy::kMaxLimit))
        status = Error{ErrorKind::InvalidInput,
                       QStringLiteral("cost must be between 1 and %1").arg(Policy::kMaxLimit)};
    return status;
}

// One refund.lua call with hit.lua's full form (lua/README.md): the bans, the user's overrides,
// the audit streams, the state keys; sent again with the windows of a TG_OVERRIDE redirect.
struct RefundCall
{
    Client* client;
    KeyLayout layout;
    QByteArray mode;
    Policy policy;
    QByteArray user;
    qint64 cost;
    QString actor, reason;
    QByteArray offsets;

    void send(const std::vector<WindowLimit>& windows, bool forOverride, int redirects,
              Context context, Callback<RefundResult> done) const
    {
        const Policy sent = forOverride ? withOverrideWindows(policy, windows) : policy;
        const KeySchema& schema = layout.schema();
        const QByteArray stream = schema.userAuditKey(user);
        Command keys{schema.userBanKey(user), schema.actionBanKey(user, policy.action),
                     schema.overridesKey(user), stream, layout.auditMirror(stream)};
        Command args{mode,
                     algorithmName(policy.algorithm),
                     QByteArray::number(cost > 0 ? cost : policy.cost),
                     policy.countDenied ? "1" : "0",
                     QByteArray::number(policy.warn),
                     QByteArray::number(policy.banMs),
                     policy.banUntilMidnight ? "midnight" : "",
                     offsets,
                     user,
                     policy.action,
                     schema.eventsChannel(),
                     sent.calendarAligned ? "calendar" : "first_hit",
                     actor.toUtf8(),
                     reason.toUtf8()};
        for (const WindowLimit& w : windows) {
            keys << schema.stateKey(user, policy.action, policy.algorithm, w.windowMs);
            args << QByteArray::number(w.limit) << QByteArray::number(w.windowMs);
        }
        if (forOverride)
            args << "override";
        const RefundCall self = *this;
        runScript(client, QStringLiteral("refund"), keys, args, nullptr, [=](Result<Reply> reply) {
            // The user's override has other windows (lua/README.md, "Overrides").
            if (!reply && reply.error().kind == ErrorKind::Redirect && redirects < 2) {
                const QByteArray target = reply.error().message.toUtf8();
                if (target == "policy") {
                    self.send(self.policy.windows, false, redirects + 1, context, done);
                    return;
                }
                if (auto to = overrideWindowsFromText(target)) {
                    self.send(*to, true, redirects + 1, context, done);
                    return;
                }
            }
            deliver(context, done,
                    reply ? RefundResult::fromReply(*reply) : Result<RefundResult>(reply.error()));
        });
    }
};

} // namespace

Result<RefundResult> RefundResult::fromReply(const Reply& reply)
{
    if (!reply.isArray() || reply.elements.size() < 7)
        return Error{ErrorKind::Protocol, QStringLiteral("malformed reply from refund.lua")};
    const auto number = [&](int i) { return reply.elements[size_t(i)].toInteger().value_or(0); };
    RefundResult result;
    result.changed = number(0) == 1;
    result.banCreated = number(1) == 1;
    result.count = number(2);
    result.limit = number(3);
    result.remaining = number(4);
    result.resetMs = number(5);
    result.banUntilMs = number(6);
    return result;
}

Refunds::Refunds(Client* client, KeySchema schema) : m_client(client), m_schema(std::move(schema))
{
}

void Refunds::refund(const Policy& policy, const QByteArray& user, qint64 cost, Context context,
                     Callback<RefundResult> done) const
{
    run("refund", policy, user, cost, {}, {}, std::move(context), std::move(done));
}

void Refunds::penalize(const Policy& policy, const QByteArray& user, qint64 cost,
                       const QString& actor, const QString& reason, Context context,
                       Callback<RefundResult> done) const
{
    // A penalty may ban: like every write of support, it says who and why.
    if (actor.trimmed().isEmpty() || reason.trimmed().isEmpty()) {
        deliver(context, done,
                Result<RefundResult>(ErrorKind::InvalidInput,
                                     QStringLiteral("a penalty needs an actor and a reason")));
        return;
    }
    run("penalize", policy, user, cost, actor, reason, std::move(context), std::move(done));
}

void Refunds::run(const QByteArray& mode, const Policy& policy, const QByteArray& user, qint64 cost,
                  const QString& actor, const QString& reason, Context context,
                  Callback<RefundResult> done) const
{
    if (Status valid = validate(policy, user, cost); !valid) {
        deliver(context, done, Result<RefundResult>(valid.error()));
        return;
    }
    QByteArray offsets = "0";
    if (policy.needsLocalTime()) {
        Result<QByteArray> around = zoneOffsetsAroundNow(policy.timeZone);
        if (!around) {
            deliver(context, done, Result<RefundResult>(around.error()));
            return;
        }
        offsets = *around;
    }
    Client* client = m_client;
    KeyLayout::of(client, m_schema, [=](const KeyLayout& layout) {
        RefundCall call{client, layout, mode, policy, user, cost, actor, reason, offsets};
        call.send(policy.windows, false, 0, context, done);
    });
}

} // namespace tollgate
