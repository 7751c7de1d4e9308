#include "core/limits/Refunds.h"

#include "core/limits/KeyLayout.h"
#include "core/limits/ZoneOffsets.h"
#include "core/scripts/ScriptRunner.h"

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
        // hit.lua's full form (lua/README.md): the bans, the audit streams, the state keys.
        const KeySchema& schema = layout.schema();
        const QByteArray stream = schema.userAuditKey(user);
        Command keys{schema.userBanKey(user), schema.actionBanKey(user, policy.action), stream,
                     layout.auditMirror(stream)};
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
                     policy.calendarAligned ? "calendar" : "first_hit",
                     actor.toUtf8(),
                     reason.toUtf8()};
        for (const WindowLimit& w : policy.windows) {
            keys << schema.stateKey(user, policy.action, policy.algorithm, w.windowMs);
            args << QByteArray::number(w.limit) << QByteArray::number(w.windowMs);
        }
        runScript(client, QStringLiteral("refund"), keys, args, nullptr, [=](Result<Reply> reply) {
            deliver(context, done,
                    reply ? RefundResult::fromReply(*reply) : Result<RefundResult>(reply.error()));
        });
    });
}

} // namespace tollgate
