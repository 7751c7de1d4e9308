#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Policy.h"

#include <QHash>
#include <QJsonObject>

#include <map>
#include <memory>

namespace tollgate::conformance {

/// What a client op answered: the reply's fields (conformance/README.md "Expectations"), or the
/// kind of error it failed with and the library's message.
struct StepOutcome
{
    QJsonObject fields;
    QString error; // "" = none; else invalid, corrupt, no_policy, ...
    QString detail;
};

/// The ops a client answers (hit, peek, refund, penalize, ban, unban, reset, override), run
/// through the C++ library's public API as an application would: Limiter, Refunds, Moderation
/// and OverrideStore, with policies read by PolicyStore and kept until a step may have changed
/// them. One connection per deadline a case asks for.
class LibraryClient
{
public:
    LibraryClient(QString url, KeySchema schema);
    ~LibraryClient();

    StepOutcome run(const QJsonObject& step);
    /// The stored policies may have changed (a policy step, a raw command): read them again.
    void forgetPolicies() { m_policies.clear(); }

private:
    Client* clientFor(int timeoutMs);
    Result<Policy> policy(const QByteArray& action);
    StepOutcome hit(const QJsonObject& step, bool peek);
    StepOutcome refund(const QJsonObject& step, bool penalize);
    StepOutcome moderate(const QJsonObject& step);
    StepOutcome override(const QJsonObject& step);

    QString m_url;
    KeySchema m_schema;
    std::map<int, std::unique_ptr<Client>> m_clients; // by command deadline, ms
    QHash<QByteArray, Policy> m_policies;
};

} // namespace tollgate::conformance
