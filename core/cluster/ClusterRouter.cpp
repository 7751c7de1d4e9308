#include "core/cluster/ClusterRouter.h"

#include "core/client/ClientInternals.h"
#include "core/cluster/CommandKeys.h"
#include "core/cluster/Topology.h"

#include <QTimer>

namespace tollgate {

struct ClusterRouter::Request
{
    EncodedCommand command;
    std::optional<int> slot; // nullopt: any primary
    Context context;
    Callback<Reply> done;
    QDeadlineTimer deadline;
    int redirects = 0;
    int attempts = 0;
    std::optional<ClusterNode> askTarget; // the next attempt goes there, after ASKING
    bool everyPrimary = false;            // SCRIPT LOAD / EXISTS / FLUSH
};

namespace {

// "3999 127.0.0.1:6381" (the text after MOVED / ASK) as the slot and the node to ask; a node
// that does not know its own address says ":6381", meaning the host we reached it on.
std::optional<std::pair<int, ClusterNode>> redirection(const QString& text, const QString& seedHost)
{
    const QStringList parts = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (parts.size() < 2)
        return std::nullopt;
    bool slotOk = false, portOk = false;
    const int slot = parts[0].toInt(&slotOk);
    const qsizetype colon = parts[1].lastIndexOf(QLatin1Char(':'));
    const int port = colon < 0 ? 0 : parts[1].mid(colon + 1).toInt(&portOk);
    if (!slotOk || !portOk || slot < 0 || slot >= kClusterSlots || port <= 0 || port > 65535)
        return std::nullopt;
    ClusterNode node;
    node.host = colon == 0 ? seedHost : parts[1].left(colon);
    node.port = quint16(port);
    return std::make_pair(slot, node);
}

// Script cache commands act on one node's cache, and a script runs on whichever node owns its
// keys: they go to every primary, so a NOSCRIPT anywhere is cured by one SCRIPT LOAD.
bool forEveryPrimary(const Command& args)
{
    if (args.size() < 2 || args[0].compare("SCRIPT", Qt::CaseInsensitive) != 0)
        return false;
    for (const char* sub : {"LOAD", "EXISTS", "FLUSH"})
        if (args[1].compare(sub, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

// The replies of every primary as one: the first error, EXISTS true only where every node
// has the script, else the first reply (LOAD's SHA-1 is the same everywhere).
Result<Reply> combined(const std::vector<Result<Reply>>& replies)
{
    for (const Result<Reply>& reply : replies)
        if (!reply)
            return reply;
    Reply out = *replies.front();
    if (out.isArray())
        for (const Result<Reply>& reply : replies)
            for (size_t i = 0; i < out.elements.size() && i < reply->elements.size(); ++i)
                if (reply->elements[i].integer == 0)
                    out.elements[i].integer = 0;
    return out;
}

} // namespace

ClusterRouter::ClusterRouter(ConnectionOptions seed, QObject* parent)
    : QObject(parent), m_nodes(std::move(seed))
{
    m_refreshTimer.setInterval(kRefreshInterval);
    connect(&m_refreshTimer, &QTimer::timeout, this, &ClusterRouter::refreshTopology);
}

ClusterRouter::~ClusterRouter()
{
    // Replies still on their way are dropped with this object (Context): answer them here.
    const Error closed{ErrorKind::Closed, QStringLiteral("cluster client closed")};
    for (const auto& request : std::exchange(m_open, {}))
        deliver(request->context, request->done, Result<Reply>(closed));
}

void ClusterRouter::open()
{
    discoverTopology(m_nodes.seed(), this, [this](Result<std::optional<SlotMap>> map) {
        m_ready = true;
        m_refreshTimer.start();
        if (map && *map) {
            m_map = **map;
            Q_EMIT ready();
        } else {
            Q_EMIT failed(map ? Error{ErrorKind::InvalidInput,
                                      QStringLiteral("%1 is not a cluster node")
                                          .arg(m_nodes.seedOptions().endpoint())}
                              : map.error());
        }
        for (const auto& send : std::exchange(m_waiting, {}))
            send();
    });
}

void ClusterRouter::execute(const Command& command, Context context, Callback<Reply> done)
{
    const auto slot = commandSlot(command);
    if (!slot) {
        deliver(context, done, Result<Reply>(slot.error()));
        return;
    }
    enqueue(EncodedCommand::fromArgs(command), *slot, forEveryPrimary(command),
            std::move(context), std::move(done));
}

void ClusterRouter::execute(EncodedCommand command, Context context, Callback<Reply> done)
{
    const auto args = decodeCommand(command);
    const auto slot = args ? commandSlot(*args) : Result<std::optional<int>>(args.error());
    if (!slot) {
        deliver(context, done, Result<Reply>(slot.error()));
        return;
    }
    enqueue(std::move(command), *slot, forEveryPrimary(*args), std::move(context),
            std::move(done));
}

void ClusterRouter::enqueue(EncodedCommand command, std::optional<int> slot, bool everyPrimary,
                            Context context, Callback<Reply> done)
{
    auto request = std::make_shared<Request>();
    request->command = std::move(command);
    request->slot = slot;
    request->everyPrimary = everyPrimary;
    request->context = std::move(context);
    request->done = std::move(done);
    request->deadline = QDeadlineTimer(m_nodes.seedOptions().commandTimeout);
    m_open.insert(request);
    if (!m_ready) {
        m_waiting.push_back([this, request] { dispatch(request); });
        return;
    }
    dispatch(request);
}

void ClusterRouter::finish(const std::shared_ptr<Request>& request, Result<Reply> reply)
{
    if (m_open.erase(request) == 0)
        return; // answered already (the router is closing)
    deliver(request->context, request->done, std::move(reply));
}

void ClusterRouter::dispatch(const std::shared_ptr<Request>& request)
{
    if (request->everyPrimary && !m_map.primaries().empty()) {
        sendToEveryPrimary(request);
        return;
    }
    // A command without keys may run anywhere: the owner of slot 0 is as good as any primary.
    // A slot of unknown owner goes to the seed: it serves it, or its MOVED says who does.
    const ClusterNode* owner =
        request->askTarget ? &*request->askTarget : m_map.primaryFor(request->slot.value_or(0));
    Client* client = owner ? m_nodes.forNode(*owner) : m_nodes.seed();
    ++request->attempts;
    if (request->askTarget) // one command may go to the importing node, right after ASKING
        client->execute({QByteArrayLiteral("ASKING")}, nullptr, [](const Result<Reply>&) {});
    request->askTarget.reset();
    const Context self(this);
    ClientInternals::execute(*client, request->command, nullptr,
                             [self, this, request](Result<Reply> reply) {
                                 self.post([this, request, reply] { onReply(request, reply); });
                             });
}

void ClusterRouter::sendToEveryPrimary(const std::shared_ptr<Request>& request)
{
    executeOnEveryPrimary(request->command, [this, request](std::vector<Result<Reply>> replies) {
        finish(request, combined(replies));
    });
}

void ClusterRouter::executeOnEveryPrimary(EncodedCommand command, EachReply done)
{
    if (!m_ready) { // which nodes are primaries is not known yet
        m_waiting.push_back([this, command, done] { executeOnEveryPrimary(command, done); });
        return;
    }
    std::vector<Client*> clients;
    for (const ClusterNode& primary : m_map.primaries())
        clients.push_back(m_nodes.forNode(primary));
    if (clients.empty())
        clients.push_back(m_nodes.seed());
    auto replies = std::make_shared<std::vector<Result<Reply>>>(
        clients.size(), Result<Reply>(ErrorKind::Closed, QStringLiteral("no reply")));
    auto left = std::make_shared<size_t>(clients.size());
    const Context self(this);
    for (size_t i = 0; i < clients.size(); ++i)
        ClientInternals::execute(*clients[i], command, nullptr,
                                 [self, replies, left, i, done](Result<Reply> reply) {
                                     self.post([replies, left, i, done, reply] {
                                         (*replies)[i] = reply;
                                         if (--*left == 0)
                                             done(std::move(*replies));
                                     });
                                 });
}

void ClusterRouter::onReply(const std::shared_ptr<Request>& request, Result<Reply> reply)
{
    if (reply) {
        finish(request, std::move(reply));
        return;
    }
    const Error& error = reply.error();
    if (error.kind == ErrorKind::Moved || error.kind == ErrorKind::Ask) {
        const auto target = redirection(error.message, m_nodes.seedOptions().host);
        if (!target || ++request->redirects > kMaxRedirects) {
            finish(request, std::move(reply));
            return;
        }
        ++m_redirects;
        if (error.kind == ErrorKind::Moved) {
            m_map.moveSlot(target->first, target->second);
            refreshTopology(); // one MOVED often means a whole range moved
        } else {
            request->askTarget = target->second;
        }
        dispatch(request);
        return;
    }
    if (error.kind == ErrorKind::Busy) {
        retryLater(request, error);
        return;
    }
    if (error.kind == ErrorKind::Closed || error.kind == ErrorKind::Io ||
        error.kind == ErrorKind::Timeout)
        refreshTopology(); // maybe a failover: the next command should find the new primary
    finish(request, std::move(reply));
}

void ClusterRouter::retryLater(const std::shared_ptr<Request>& request, const Error& error)
{
    // 20, 40, 80 ... ms, at most 1 s, while the deadline allows it.
    const int backoffMs = std::min(1000, 20 << std::min(request->attempts, 6));
    if (request->deadline.remainingTime() < backoffMs) {
        finish(request, Result<Reply>(error));
        return;
    }
    refreshTopology();
    QTimer::singleShot(backoffMs, this, [this, request] { dispatch(request); });
}

void ClusterRouter::refreshTopology()
{
    if (m_refreshing)
        return;
    m_refreshing = true;
    std::vector<Client*> nodes;
    for (const ClusterNode& primary : m_map.primaries())
        nodes.push_back(m_nodes.forNode(primary));
    nodes.push_back(m_nodes.seed());
    discoverTopologyFromAny(nodes, this, [this](Result<std::optional<SlotMap>> map) {
        m_refreshing = false;
        if (map && *map && (*map)->coversAllSlots())
            m_map = **map;
    });
}

} // namespace tollgate
