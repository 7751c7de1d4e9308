// How a Client learns what its server is (HELLO's "mode", asked at open) and what changes on a
// Redis Cluster: a ClusterRouter on the worker thread, commands that ask every primary.
#include "tollgate/Client.h"

#include "core/client/ClientPending.h"

#include "core/client/TwemproxyBackends.h"
#include "core/cluster/ClusterRouter.h"
#include "core/redis/Connection.h"
#include "core/redis/ReplyOrder.h"

#include <QPointer>

namespace tollgate {

void Client::probeMode()
{
    // HELLO answers every authenticated user, whatever its ACL; a server without HELLO
    // (before 6.0) is no cluster Tollgate supports anyway.
    m_connection->submit(
        EncodedCommand::fromArgs({QByteArrayLiteral("HELLO"), QByteArrayLiteral("2")}),
        [this, alive = QPointer<Client>(this)](Result<Reply> hello) {
            if (!alive || m_closing.load())
                return; // answered by the connection's destruction
            if (!hello && (hello.error().kind == ErrorKind::Closed ||
                           hello.error().kind == ErrorKind::Io ||
                           hello.error().kind == ErrorKind::Timeout))
                m_probeAgain = true; // unreachable for now: standalone until it answers
            bool cluster = false;
            if (hello) {
                const auto fields = hello->toPairs();
                for (const auto& field : fields)
                    if (field.first == "mode")
                        cluster = field.second == "cluster";
            }
            setMode(cluster);
        });
}

void Client::setMode(bool cluster)
{
    if (cluster && !m_router) {
        m_router = new ClusterRouter(m_options); // on this (the worker) thread
        m_replyOrder = std::make_shared<ReplyOrder>();
        m_router->open();
    }
    m_cluster.store(cluster);
    std::vector<std::pair<Context, std::function<void()>>> waiters;
    {
        QMutexLocker lock(&m_pendingMutex);
        m_probing.store(false);
        waiters.swap(m_modeWaiters);
    }
    drainPending();
    for (auto& [context, call] : waiters)
        if (context.isNull())
            call();
        else
            context.post(std::move(call));
}

void Client::whenModeKnown(Context context, std::function<void()> call)
{
    {
        QMutexLocker lock(&m_pendingMutex);
        if (m_probing.load()) {
            m_modeWaiters.emplace_back(std::move(context), std::move(call));
            return;
        }
    }
    if (context.isNull())
        call();
    else
        context.post(std::move(call));
}

namespace {

// A command the proxy does not forward (INFO, SLOWLOG GET, CONFIG GET), on each backend
// directly: one reply per backend, in the pool's order, delivered together.
void onEveryBackend(TwemproxyBackends* backends, const Command& command,
                    std::function<void(std::vector<Result<Reply>>)> deliverAll)
{
    if (backends->isEmpty()) {
        deliverAll({Result<Reply>(TwemproxyBackends::missing(QString::fromUtf8(command.value(0))))});
        return;
    }
    auto replies = std::make_shared<std::vector<Result<Reply>>>(
        size_t(backends->size()), Result<Reply>(ErrorKind::Closed, QString()));
    auto remaining = std::make_shared<std::atomic<int>>(backends->size());
    for (int i = 0; i < backends->size(); ++i)
        backends->at(i)->execute(command, nullptr, [=](Result<Reply> reply) {
            (*replies)[size_t(i)] = std::move(reply);
            if (remaining->fetch_sub(1) == 1)
                deliverAll(std::move(*replies));
        });
}

} // namespace

void Client::executeOnEveryPrimary(const Command& command, Context context,
                                   std::function<void(std::vector<Result<Reply>>)> done)
{
    auto deliverAll = [context, done](std::vector<Result<Reply>> replies) {
        if (context.isNull())
            done(std::move(replies));
        else
            context.post([done, replies = std::move(replies)]() mutable { done(std::move(replies)); });
    };
    if (m_backends) {
        onEveryBackend(m_backends.get(), command, std::move(deliverAll));
        return;
    }
    // The mode first: it decides how many nodes answer.
    whenModeKnown(nullptr, [this, command, deliverAll] {
        if (!m_router || m_closing.load()) {
            execute(command, nullptr, [deliverAll](Result<Reply> reply) {
                deliverAll({std::move(reply)});
            });
            return;
        }
        runLater(std::chrono::milliseconds(0), [this, command, deliverAll] {
            m_commands.fetch_add(1, std::memory_order_relaxed);
            m_router->executeOnEveryPrimary(EncodedCommand::fromArgs(command), deliverAll);
        });
    });
}

ClusterRouter* Client::clusterRouter() const
{
    return m_closing.load() ? nullptr : m_router;
}

} // namespace tollgate
