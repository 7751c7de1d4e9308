#include "core/cluster/ClusterRouter.h"

#include "core/cluster/CommandKeys.h"
#include "core/cluster/Topology.h"

#include <QTimer>

namespace tollgate {

struct ClusterRouter::Request
{
    Command command;
    std::optional<int> slot; // nullopt: any primary
    Context context;
    Callback<Reply> done;
    QDeadlineTimer deadline;
    int redirects = 0;
    int attempts = 0;
    std::optional<ClusterNode> askTarget; // the next attempt goes there, after ASKING
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

} // namespace

ClusterRouter::ClusterRouter(ConnectionOptions seed, QObject* parent)
    : QObject(parent), m_nodes(std::move(seed))
{
}

ClusterRouter::~ClusterRouter() = default;

void ClusterRouter::open()
{
    discoverTopology(m_nodes.seed(), this, [this](Result<std::optional<SlotMap>> map) {
        if (!map || !*map) {
            const Error error =
                map ? Error{ErrorKind::InvalidInput, QStringLiteral("%1 is not a cluster node")
                                                         .arg(m_nodes.seedOptions().endpoint())}
                    : map.error();
            for (const auto& request : std::exchange(m_waiting, {}))
                deliver(request->context, request->done, Result<Reply>(error));
            Q_EMIT failed(error);
            return;
        }
        m_map = **map;
        m_ready = true;
        for (const auto& request : std::exchange(m_waiting, {}))
            dispatch(request);
        Q_EMIT ready();
    });
}

void ClusterRouter::execute(Command command, Context context, Callback<Reply> done)
{
    const auto slot = commandSlot(command);
    if (!slot) {
        deliver(context, done, Result<Reply>(slot.error()));
        return;
    }
    auto request = std::make_shared<Request>();
    request->command = std::move(command);
    request->slot = *slot;
    request->context = context;
    request->done = std::move(done);
    request->deadline = QDeadlineTimer(m_nodes.seedOptions().commandTimeout);
    if (!m_ready) {
        m_waiting.push_back(request);
        return;
    }
    dispatch(request);
}

void ClusterRouter::dispatch(const std::shared_ptr<Request>& request)
{
    // A command without keys may run anywhere: the owner of slot 0 is as good as any primary.
    const ClusterNode* owner =
        request->askTarget ? &*request->askTarget : m_map.primaryFor(request->slot.value_or(0));
    if (!owner) {
        retryLater(
            request,
            Error{ErrorKind::Busy,
                  QStringLiteral("no node serves slot %1 yet").arg(request->slot.value_or(-1))});
        return;
    }
    Client* client = m_nodes.forNode(*owner);
    ++request->attempts;
    if (request->askTarget) // one command may go to the importing node, right after ASKING
        client->execute({QByteArrayLiteral("ASKING")}, nullptr, [](const Result<Reply>&) {});
    request->askTarget.reset();
    const Context self(this);
    client->execute(request->command, nullptr, [self, this, request](Result<Reply> reply) {
        self.post([this, request, reply] { onReply(request, reply); });
    });
}

void ClusterRouter::onReply(const std::shared_ptr<Request>& request, Result<Reply> reply)
{
    if (reply) {
        deliver(request->context, request->done, std::move(reply));
        return;
    }
    const Error& error = reply.error();
    if (error.kind == ErrorKind::Moved || error.kind == ErrorKind::Ask) {
        const auto target = redirection(error.message, m_nodes.seedOptions().host);
        if (!target || ++request->redirects > kMaxRedirects) {
            deliver(request->context, request->done, std::move(reply));
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
    deliver(request->context, request->done, std::move(reply));
}

void ClusterRouter::retryLater(const std::shared_ptr<Request>& request, const Error& error)
{
    // 20, 40, 80 ... ms, at most 1 s, while the deadline allows it.
    const int backoffMs = std::min(1000, 20 << std::min(request->attempts, 6));
    if (request->deadline.remainingTime() < backoffMs) {
        deliver(request->context, request->done, Result<Reply>(error));
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
