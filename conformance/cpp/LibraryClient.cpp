#include "conformance/cpp/LibraryClient.h"

#include "conformance/cpp/CaseFile.h"
#include "tollgate/Blocking.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "tollgate/Policy.h"
#include "tollgate/PolicyStore.h"
#include "tollgate/Refunds.h"

#include <QElapsedTimer>

namespace tollgate::conformance {

namespace {

constexpr int kDefaultDeadlineMs = 1000;

const QString kConformance = QStringLiteral("conformance");

/// An error of the library as the README's error kinds; `policyRead` for errors of reading
/// the policy, where a malformed hash is a bad policy rather than a corrupt counter.
QString errorKind(const Error& error, bool policyRead)
{
    if (isUnavailable(error))
        return QStringLiteral("unavailable");
    switch (error.kind) {
    case ErrorKind::InvalidInput:
        return QStringLiteral("invalid");
    case ErrorKind::WrongType:
        return policyRead ? QStringLiteral("bad_policy") : QStringLiteral("corrupt");
    case ErrorKind::NotFound:
        return QStringLiteral("no_policy");
    case ErrorKind::Contract:
        return QStringLiteral("contract");
    case ErrorKind::NoPerm:
        return QStringLiteral("noperm");
    default:
        return QStringLiteral("unexpected_") + errorKindName(error.kind);
    }
}

StepOutcome failed(const Error& error, bool policyRead = false)
{
    return {{}, errorKind(error, policyRead), error.toString()};
}

StepOutcome invalid(const QString& why)
{
    return {{}, QStringLiteral("invalid"), why};
}

QString text(const QJsonObject& step, const char* field)
{
    return step.value(QLatin1String(field)).toString(kConformance);
}

QJsonObject hitFields(const HitResult& hit)
{
    QJsonObject fields{
        {QStringLiteral("allowed"), hit.allowed},
        {QStringLiteral("tier"), tierName(hit.tier)},
        {QStringLiteral("count"), hit.count},
        {QStringLiteral("limit"), hit.limit},
        {QStringLiteral("remaining"), hit.remaining},
        {QStringLiteral("reset_ms"), hit.resetMs},
        {QStringLiteral("retry_after_ms"), hit.retryAfterMs},
        {QStringLiteral("message"), hit.message.isEmpty() ? QJsonValue() : QJsonValue(hit.message)},
        {QStringLiteral("override"), appliedOverrideName(hit.appliedOverride)},
        {QStringLiteral("shadow"), hit.shadow ? (hit.wouldBan ? 2 : 1) : 0},
        {QStringLiteral("source"), hit.decidedBy == DecidedBy::Redis || hit.decidedBy == DecidedBy::Cache
                                       ? QStringLiteral("redis")
                                       : QStringLiteral("failure_policy")},
    };
    if (hit.countNow >= 0) {
        fields.insert(QStringLiteral("count_now"), hit.countNow);
        fields.insert(QStringLiteral("reset_now_ms"), hit.resetNowMs);
    }
    return fields;
}

} // namespace

LibraryClient::LibraryClient(QString url, KeySchema schema)
    : m_url(std::move(url)), m_schema(std::move(schema))
{
}

LibraryClient::~LibraryClient() = default;

Client* LibraryClient::clientFor(int timeoutMs)
{
    auto& client = m_clients[timeoutMs];
    if (!client) {
        auto options = ConnectionOptions::fromUrl(m_url);
        options->clientName = QStringLiteral("tollgate-conformance");
        options->commandTimeout = std::chrono::milliseconds(timeoutMs);
        options->connectTimeout = std::chrono::milliseconds(timeoutMs);
        client = std::make_unique<Client>(*options);
        client->open();
    }
    return client.get();
}

Result<Policy> LibraryClient::policy(const QByteArray& action)
{
    if (auto known = m_policies.constFind(action); known != m_policies.constEnd())
        return *known;
    Client* client = clientFor(kDefaultDeadlineMs);
    auto read = waitFor<Policy>(
        [&](Callback<Policy> done) { PolicyStore(client, m_schema).get(action, nullptr, done); });
    if (read)
        m_policies.insert(action, *read);
    return read;
}

StepOutcome LibraryClient::run(const QJsonObject& step)
{
    const QString op = step.value(QStringLiteral("op")).toString();
    if (op == QLatin1String("hit") || op == QLatin1String("peek"))
        return hit(step, op == QLatin1String("peek"));
    if (op == QLatin1String("refund") || op == QLatin1String("penalize"))
        return refund(step, op == QLatin1String("penalize"));
    if (op == QLatin1String("override"))
        return override(step);
    return moderate(step);
}

StepOutcome LibraryClient::hit(const QJsonObject& step, bool peek)
{
    const auto action = idBytes(step.value(QStringLiteral("action")));
    const auto user = idBytes(step.value(QStringLiteral("user")));
    if (!action || !user)
        return invalid(QStringLiteral("an id is a string, {repeat, times} or {hex}"));
    // The library reads cost 0 as "the policy's"; a caller asking for 0 units is refused.
    const qint64 cost = qint64(step.value(QStringLiteral("cost")).toDouble(0));
    if (step.contains(QStringLiteral("cost")) && cost < 1)
        return invalid(QStringLiteral("cost must be 1 or more"));
    const QJsonObject options = step.value(QStringLiteral("client")).toObject();
    const int deadline = options.value(QStringLiteral("timeout_ms")).toInt(kDefaultDeadlineMs);
    std::optional<FailureMode> mode;
    if (options.contains(QStringLiteral("on_error"))) {
        const QByteArray name = options.value(QStringLiteral("on_error")).toString().toUtf8();
        mode = name == "report" ? FailureMode::Report : failureModeFromName(name);
        if (!mode)
            return invalid(QStringLiteral("unknown on_error"));
    }
    auto stored = policy(*action);
    if (!stored) {
        if (!mode || !isUnavailable(stored.error()))
            return failed(stored.error(), true);
        Policy unknown;
        unknown.action = *action;
        auto answer = Limiter::answerWithoutRedis(*mode, nullptr, unknown, *user, cost, !peek,
                                                  stored.error());
        return answer ? StepOutcome{hitFields(*answer), {}, {}} : failed(answer.error());
    }
    Limiter limiter(clientFor(deadline), m_schema);
    if (mode)
        limiter.setFailureMode(*mode);
    auto result = waitFor<HitResult>([&](Callback<HitResult> done) {
        if (peek)
            limiter.peek(*stored, *user, cost, nullptr, done);
        else
            limiter.hit(*stored, *user, cost, nullptr, done);
    });
    return result ? StepOutcome{hitFields(*result), {}, {}} : failed(result.error());
}

StepOutcome LibraryClient::refund(const QJsonObject& step, bool penalize)
{
    const auto action = idBytes(step.value(QStringLiteral("action")));
    const auto user = idBytes(step.value(QStringLiteral("user")));
    const qint64 cost = qint64(step.value(QStringLiteral("cost")).toDouble(0));
    if (!action || !user || cost < 1)
        return invalid(QStringLiteral("ids, and a cost of 1 or more"));
    auto stored = policy(*action);
    if (!stored)
        return failed(stored.error(), true);
    const int deadline = step.value(QStringLiteral("client"))
                             .toObject()
                             .value(QStringLiteral("timeout_ms"))
                             .toInt(kDefaultDeadlineMs);
    const Refunds refunds(clientFor(deadline), m_schema);
    auto result = waitFor<RefundResult>([&](Callback<RefundResult> done) {
        if (penalize)
            refunds.penalize(*stored, *user, cost, text(step, "actor"), text(step, "reason"),
                             nullptr, done);
        else
            refunds.refund(*stored, *user, cost, nullptr, done);
    });
    if (!result)
        return failed(result.error());
    return {QJsonObject{{QStringLiteral("changed"), result->changed},
                        {QStringLiteral("ban_created"), result->banCreated},
                        {QStringLiteral("count"), result->count},
                        {QStringLiteral("limit"), result->limit},
                        {QStringLiteral("remaining"), result->remaining},
                        {QStringLiteral("reset_ms"), result->resetMs},
                        {QStringLiteral("ban_until_ms"), result->banUntilMs}},
            {},
            {}};
}

StepOutcome LibraryClient::moderate(const QJsonObject& step)
{
    const QString op = step.value(QStringLiteral("op")).toString();
    const auto user = idBytes(step.value(QStringLiteral("user")));
    // No action: every action of the user.
    const auto action = step.contains(QStringLiteral("action"))
                            ? idBytes(step.value(QStringLiteral("action")))
                            : std::optional<QByteArray>(QByteArray());
    if (!user || !action)
        return invalid(QStringLiteral("an id is a string, {repeat, times} or {hex}"));
    const Moderation moderation(clientFor(kDefaultDeadlineMs), m_schema);
    if (op == QLatin1String("ban")) {
        BanRequest request;
        request.user = *user;
        request.action = *action;
        request.actor = text(step, "actor");
        request.reason = text(step, "reason");
        request.durationMs = qint64(step.value(QStringLiteral("ms")).toDouble(0));
        auto ban = waitFor<BanInfo>(
            [&](Callback<BanInfo> done) { moderation.ban(request, nullptr, done); });
        return ban ? StepOutcome{} : failed(ban.error());
    }
    auto count = waitFor<qint64>([&](Callback<qint64> done) {
        if (op == QLatin1String("unban"))
            moderation.unban(*user, *action, text(step, "actor"), text(step, "reason"), nullptr, done);
        else
            moderation.reset(*user, *action, text(step, "actor"), text(step, "reason"), nullptr, done);
    });
    return count ? StepOutcome{} : failed(count.error());
}

StepOutcome LibraryClient::override(const QJsonObject& step)
{
    OverrideRequest request;
    const auto user = idBytes(step.value(QStringLiteral("user")));
    const auto action = idBytes(step.value(QStringLiteral("action")));
    if (!user || !action)
        return invalid(QStringLiteral("an id is a string, {repeat, times} or {hex}"));
    request.user = *user;
    request.action = *action;
    if (step.value(QStringLiteral("unlimited")).toBool()) {
        request.kind = OverrideKind::Unlimited;
    } else {
        auto windows = overrideWindowsFromText(step.value(QStringLiteral("windows")).toString().toUtf8());
        if (!windows)
            return invalid(windows.error().message);
        request.windows = *windows;
    }
    request.durationMs = qint64(step.value(QStringLiteral("ms")).toDouble(0));
    request.permanent = request.durationMs == 0;
    request.actor = text(step, "actor");
    request.reason = text(step, "reason");
    auto stored = waitFor<Override>([&](Callback<Override> done) {
        OverrideStore(clientFor(kDefaultDeadlineMs), m_schema).set(request, nullptr, done);
    });
    return stored ? StepOutcome{} : failed(stored.error());
}

} // namespace tollgate::conformance
