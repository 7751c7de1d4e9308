#include "core/sentinel/SentinelLocator.h"

#include "core/client/NodeClients.h"
#include "core/redis/ErrorReply.h"
#include "core/sentinel/SentinelTopology.h"

#include <QStringList>
#include <algorithm>

namespace tollgate {

namespace {

bool isUnreachable(const Error& error)
{
    return error.kind == ErrorKind::Io || error.kind == ErrorKind::Closed ||
           error.kind == ErrorKind::Timeout;
}

} // namespace

struct SentinelLocator::Search
{
    Callback<NodeAddress> done;
    QStringList errors;
    std::optional<ErrorKind> kind; // the first answer that was not "unreachable"
    bool allNotFound = true;
};

SentinelLocator::SentinelLocator(const ConnectionOptions& options, QObject* parent)
    : ServerLocator(parent), m_sentinel(options.sentinel), m_follow(options.autoReconnect),
      m_order(options.sentinel.sentinels)
{
    // Made here but opened on first use, from the connection's thread (locate()).
    m_queries = std::make_unique<NodeClients>(sentinelClientOptions(options));
    m_subscribers = std::make_unique<NodeClients>(sentinelClientOptions(options));
}

SentinelLocator::~SentinelLocator() = default;

QString SentinelLocator::lastSentinel() const
{
    return m_order.empty() ? QString() : m_order.front().text();
}

void SentinelLocator::locate(Callback<NodeAddress> done)
{
    if (m_follow)
        followSwitches();
    auto search = std::make_shared<Search>();
    search->done = std::move(done);
    ask(search, 0);
}

std::optional<Command> SentinelLocator::handshakeCheck() const
{
    return Command{QByteArrayLiteral("ROLE")};
}

std::optional<Error> SentinelLocator::checkHandshake(const Result<Reply>& role,
                                                     const QString& endpoint)
{
    // A user whose ACL forbids ROLE cannot check: the sentinel is trusted, and a READONLY reply
    // still sends the connection back to the sentinels.
    if (!role || !role->isArray() || role->elements.empty())
        return std::nullopt;
    const QByteArray name = role->elements.front().toBytes();
    const bool replica = m_sentinel.replica;
    if (name == (replica ? "slave" : "master"))
        return std::nullopt;
    const QString sentinel = lastSentinel();
    distrust();
    return Error{ErrorKind::Busy,
                 QStringLiteral("%1 is a %2 (ROLE), not the %3 of '%4' that the sentinel at %5 "
                                "named: asking the sentinels again")
                     .arg(endpoint, QString::fromUtf8(name),
                          replica ? QStringLiteral("replica") : QStringLiteral("primary"),
                          m_sentinel.masterName, sentinel)};
}

std::optional<Error> SentinelLocator::checkErrorReply(const QByteArray& text,
                                                      const QString& endpoint) const
{
    if (m_sentinel.replica || !isReadOnlyReply(text))
        return std::nullopt;
    return Error{ErrorKind::Busy, QStringLiteral("%1 is a replica now (READONLY): asking the "
                                                 "sentinels for the primary of '%2'")
                                      .arg(endpoint, m_sentinel.masterName)};
}

QString SentinelLocator::relocationReason(const NodeAddress& primary) const
{
    return QStringLiteral("failover: the sentinels moved '%1' to %2")
        .arg(m_sentinel.masterName, primary.text());
}

void SentinelLocator::distrust()
{
    // The sentinel asked first named the wrong server: the others go first next time.
    if (m_order.size() > 1)
        std::rotate(m_order.begin(), m_order.begin() + 1, m_order.end());
    m_located.reset();
}

void SentinelLocator::ask(const std::shared_ptr<Search>& search, size_t index)
{
    if (index >= m_order.size()) {
        const ErrorKind kind =
            search->allNotFound ? ErrorKind::NotFound : search->kind.value_or(ErrorKind::Io);
        search->done(Error{
            kind,
            QStringLiteral("no sentinel named a %1 for '%2': %3")
                .arg(m_sentinel.replica ? QStringLiteral("replica") : QStringLiteral("primary"),
                     m_sentinel.masterName, search->errors.join(QStringLiteral("; ")))});
        return;
    }
    const NodeAddress sentinel = m_order[index];
    Command command{QByteArrayLiteral("SENTINEL")};
    command << (m_sentinel.replica ? QByteArrayLiteral("REPLICAS")
                                   : QByteArrayLiteral("GET-MASTER-ADDR-BY-NAME"))
            << m_sentinel.masterName.toUtf8();
    m_queries->forNode(sentinel)
        ->execute(command, this, [this, search, index, sentinel](Result<Reply> reply) {
            Result<NodeAddress> server = serverIn(reply);
            if (server) {
                // The one that answered is asked first next time.
                const auto at = std::find(m_order.begin(), m_order.end(), sentinel);
                if (at != m_order.end())
                    std::rotate(m_order.begin(), at, at + 1);
                m_located = *server;
                search->done(std::move(server));
                return;
            }
            const Error& error = server.error();
            // Named once: a connection error names its address itself.
            search->errors << (error.message.contains(sentinel.text())
                                   ? error.toString()
                                   : sentinel.text() + QStringLiteral(": ") + error.toString());
            search->allNotFound = search->allNotFound && error.kind == ErrorKind::NotFound;
            if (!search->kind && !isUnreachable(error) && error.kind != ErrorKind::NotFound)
                search->kind = error.kind;
            ask(search, index + 1);
        });
}

Result<NodeAddress> SentinelLocator::serverIn(const Result<Reply>& reply) const
{
    if (!reply)
        return reply.error();
    return m_sentinel.replica ? healthyReplicaIn(*reply, m_sentinel.masterName)
                              : primaryAddressIn(*reply, m_sentinel.masterName);
}

void SentinelLocator::followSwitches()
{
    for (const NodeAddress& sentinel : m_sentinel.sentinels) {
        if (!m_watched.insert(sentinel.text()).second)
            continue;
        Client* client = m_subscribers->forNode(sentinel);
        auto subscribe = [this, client] {
            client->execute({QByteArrayLiteral("SUBSCRIBE"), QByteArrayLiteral("+switch-master")},
                            this, [](const Result<Reply>&) {});
        };
        // Again after every reconnect: a sentinel that restarts forgets its subscribers.
        connect(client, &Client::stateChanged, this, [subscribe](ConnectionState state) {
            if (state == ConnectionState::Connected)
                subscribe();
        });
        connect(client, &Client::messageReceived, this,
                [this](const QByteArray&, const QByteArray& payload) { onSwitch(payload); });
        subscribe();
    }
}

void SentinelLocator::onSwitch(const QByteArray& payload)
{
    // "<master-name> <old-ip> <old-port> <new-ip> <new-port>"
    const QList<QByteArray> parts = payload.split(' ');
    if (parts.size() != 5 || QString::fromUtf8(parts[0]) != m_sentinel.masterName)
        return;
    const NodeAddress primary{QString::fromUtf8(parts[3]), quint16(parts[4].toUInt())};
    // Every sentinel announces it: only the first finds the connection on the wrong server.
    // A replica connection leaves only the replica that was promoted.
    const bool wrong = m_sentinel.replica ? m_located == primary : m_located != primary;
    if (!m_located || !wrong)
        return;
    m_located = primary;
    if (m_sentinel.replica)
        m_located.reset();
    Q_EMIT relocated(primary);
}

Result<NodeAddress> primaryAddressIn(const Reply& reply, const QString& masterName)
{
    if (reply.isNil())
        return Error{ErrorKind::NotFound,
                     QStringLiteral("no master named '%1' is watched").arg(masterName)};
    const auto port = reply.elements.size() == 2 ? reply.elements[1].toInteger() : std::nullopt;
    if (!reply.isArray() || !port || *port < 1 || *port > 65535)
        return Error{ErrorKind::Protocol,
                     QStringLiteral("unexpected reply to SENTINEL GET-MASTER-ADDR-BY-NAME")};
    return NodeAddress{reply.elements[0].toQString(), quint16(*port)};
}

Result<NodeAddress> healthyReplicaIn(const Reply& reply, const QString& masterName)
{
    std::optional<NodeAddress> best;
    qint64 bestOffset = -1;
    for (const Reply& replica : reply.elements) {
        QByteArray ip, flags, link;
        qint64 port = 0;
        qint64 offset = 0;
        for (const auto& [field, value] : replica.toPairs()) {
            if (field == "ip")
                ip = value;
            else if (field == "port")
                port = value.toLongLong();
            else if (field == "flags")
                flags = value;
            else if (field == "master-link-status")
                link = value;
            else if (field == "slave-repl-offset")
                offset = value.toLongLong();
        }
        const bool healthy = !flags.contains("down") && !flags.contains("disconnected") &&
                             link == "ok" && port > 0 && port < 65536;
        if (healthy && offset > bestOffset) {
            best = NodeAddress{QString::fromUtf8(ip), quint16(port)};
            bestOffset = offset;
        }
    }
    if (!best)
        return Error{ErrorKind::NotFound,
                     QStringLiteral("no healthy replica of '%1'").arg(masterName)};
    return *best;
}

} // namespace tollgate
