#pragma once

#include "conformance/cpp/CaseFile.h"
#include "tollgate/Client.h"

#include <QString>

#include <functional>
#include <memory>

namespace tollgate::conformance {

/// The server a run uses: its URL, and a way to stop and resume it (SIGSTOP / SIGCONT) for the
/// failure-policy cases; null on a cluster, whose cases do not freeze.
struct Server
{
    QString url;
    bool cluster = false;
    std::function<void(bool frozen)> freeze;
};

/// Runs cases against one server with the C++ library (conformance/README.md "Runners"): the
/// steps every runner runs the same way (policies, sleeps, raw commands, freeze, the TTL check)
/// with an inspection client of its own, the client ops with a LibraryClient.
class CaseRunner
{
public:
    explicit CaseRunner(Server server);
    ~CaseRunner();

    /// False with `error` when the inspection client cannot reach the server.
    bool connect(QString* error);
    /// "PASS <file>", "FAIL <file>: ..." or "SKIP <file>: <why>".
    QString run(const CaseFile& testCase);

private:
    /// "" when the step met its expectations, else "<field> expected <x> got <y>".
    QString runStep(const QJsonObject& step, class LibraryClient& client, const CaseFile& testCase);
    Status writePolicy(const QByteArray& prefix, const QByteArray& action, const QJsonObject& fields);
    Status deletePolicy(const QByteArray& prefix, const QByteArray& action);
    qint64 keysWithoutTtl(const QByteArray& prefix);

    Server m_server;
    std::unique_ptr<Client> m_inspector;
};

} // namespace tollgate::conformance
