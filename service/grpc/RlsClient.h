#pragma once

#include "service/decide/Decision.h"

#include <QObject>
#include <functional>
#include <memory>

namespace tollgate::service {

/// An asynchronous client of Envoy's rate limit service (gRPC's callback API), for the demo's
/// traffic and for tests of our own: calls go out at once, and each answer comes back on the
/// thread of `context` (as the rest of the project's asynchronous calls do).
class RlsClient
{
public:
    /// "host:port", plain text.
    explicit RlsClient(const QString& target);
    ~RlsClient();

    struct Answer
    {
        bool ok = false;       // the call succeeded (see code)
        Code code = Code::Unknown;
        QString error;         // when the call failed
    };

    /// One ShouldRateLimit call; `done` runs on `context`'s thread unless it is gone by then.
    void decide(const DecisionRequest& request, QObject* context, std::function<void(Answer)> done);

private:
    struct Channel;
    std::unique_ptr<Channel> m_channel;
};

} // namespace tollgate::service
