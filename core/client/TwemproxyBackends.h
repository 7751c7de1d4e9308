#pragma once

#include "tollgate/ConnectionOptions.h"
#include "tollgate/Result.h"

#include <QMutex>
#include <memory>
#include <vector>

namespace tollgate {

class Client;

/// The redis-servers behind a Twemproxy pool, one Client each, for what the proxy does not
/// forward: SCAN, INFO, SLOWLOG, the events channel, and repairs of keys an ejection left on a
/// backend the proxy no longer sends them to. Each is opened on first use with the proxy's
/// options (password, timeouts) and the backend's address, and lays out keys as the proxy's
/// clients do (one hash tag per script). Thread-safe.
class TwemproxyBackends
{
public:
    explicit TwemproxyBackends(const ConnectionOptions& proxy);
    ~TwemproxyBackends();

    bool isEmpty() const { return m_addresses.empty(); }
    int size() const { return int(m_addresses.size()); }
    const std::vector<NodeAddress>& addresses() const { return m_addresses; }
    /// Backend i's client, opened on first use.
    Client* at(int i);

    /// The error for `what` (e.g. "SCAN") when no backend is known: it names what to add.
    static Error missing(const QString& what);

private:
    ConnectionOptions m_template;
    std::vector<NodeAddress> m_addresses;
    QMutex m_mutex;
    std::vector<std::unique_ptr<Client>> m_clients; // m_mutex; null until first used
};

} // namespace tollgate
