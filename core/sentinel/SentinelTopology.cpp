#include "core/sentinel/SentinelTopology.h"

#include <QMutex>
#include <QStringList>

namespace tollgate {

namespace {

std::map<QByteArray, QByteArray> fieldsOf(const Reply& reply)
{
    std::map<QByteArray, QByteArray> fields;
    for (const auto& [field, value] : reply.toPairs())
        fields[field] = value;
    return fields;
}

NodeAddress addressIn(std::map<QByteArray, QByteArray>& fields)
{
    return {QString::fromUtf8(fields["ip"]), quint16(fields["port"].toUInt())};
}

// SENTINEL REPLICAS and SENTINEL SENTINELS through the sentinel that answered first.
void describe(NodeClients* sentinels, SentinelTopology topology, Context context,
              Callback<SentinelTopology> done)
{
    const QByteArray name = topology.masterName.toUtf8();
    Client* client = sentinels->forNode(topology.sentinels.front().address);
    for (const SentinelTopology::Sentinel& sentinel : topology.sentinels)
        if (sentinel.answered) {
            client = sentinels->forNode(sentinel.address);
            topology.describedBy = sentinel.address.text();
            break;
        }
    client->executeBatch(
        {{"SENTINEL", "REPLICAS", name}, {"SENTINEL", "SENTINELS", name}}, nullptr,
        [topology, context, done](std::vector<Result<Reply>> replies) mutable {
            if (replies.size() != 2 || !replies[0] || !replies[1]) {
                const Error error = replies.size() != 2
                                        ? Error{ErrorKind::Closed, QStringLiteral("no reply")}
                                    : !replies[0] ? replies[0].error()
                                                  : replies[1].error();
                deliver(context, done, Result<SentinelTopology>(error));
                return;
            }
            for (const Reply& entry : replies[0]->elements) {
                auto fields = fieldsOf(entry);
                topology.replicas.push_back(
                    {addressIn(fields), fields["flags"], fields["master-link-status"] == "ok"});
            }
            for (const Reply& entry : replies[1]->elements) {
                auto fields = fieldsOf(entry);
                const NodeAddress address = addressIn(fields);
                bool known = false;
                for (const auto& sentinel : topology.sentinels)
                    known = known || sentinel.address == address;
                if (!known)
                    topology.sentinels.push_back({address, false,
                                                  QObject::tr("not configured here; flags %1")
                                                      .arg(QString::fromUtf8(fields["flags"]))});
            }
            deliver(context, done, Result<SentinelTopology>(std::move(topology)));
        });
}

} // namespace

ConnectionOptions sentinelClientOptions(ConnectionOptions options)
{
    options.user = options.sentinel.user;
    options.password = options.sentinel.password;
    options.sentinel = {};
    options.database = 0;
    return options;
}

void readSentinelTopology(NodeClients* sentinels, const SentinelOptions& options, Context context,
                          Callback<SentinelTopology> done)
{
    struct Gather
    {
        QMutex mutex;
        SentinelTopology topology;
        size_t pending = 0;
        std::optional<Error> firstError;
        bool described = false; // a sentinel watching the master answered
    };
    auto gather = std::make_shared<Gather>();
    gather->topology.masterName = options.masterName;
    gather->pending = options.sentinels.size();
    for (const NodeAddress& address : options.sentinels)
        gather->topology.sentinels.push_back({address, false, {}});
    if (options.sentinels.empty()) {
        deliver(context, done,
                Result<SentinelTopology>(
                    Error{ErrorKind::InvalidInput, QStringLiteral("no sentinels")}));
        return;
    }
    for (size_t i = 0; i < options.sentinels.size(); ++i) {
        sentinels->forNode(options.sentinels[i])
            ->execute({"SENTINEL", "MASTER", options.masterName.toUtf8()}, nullptr,
                      [gather, i, sentinels, context, done](Result<Reply> reply) {
                          QMutexLocker lock(&gather->mutex);
                          SentinelTopology& topology = gather->topology;
                          SentinelTopology::Sentinel& sentinel = topology.sentinels[i];
                          sentinel.answered = bool(reply);
                          if (!reply) {
                              sentinel.error = reply.error().toString();
                              if (!gather->firstError || reply.error().kind == ErrorKind::NotFound)
                                  gather->firstError = reply.error();
                          } else if (!gather->described) {
                              auto fields = fieldsOf(*reply);
                              topology.primary = addressIn(fields);
                              topology.primaryFlags = fields["flags"];
                              topology.quorum = fields["quorum"].toInt();
                              gather->described = true;
                          }
                          if (--gather->pending > 0)
                              return;
                          lock.unlock();
                          if (!gather->described) {
                              deliver(context, done, Result<SentinelTopology>(*gather->firstError));
                              return;
                          }
                          describe(sentinels, std::move(gather->topology), context, done);
                      });
    }
}

} // namespace tollgate
