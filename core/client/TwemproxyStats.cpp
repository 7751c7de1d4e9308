#include "core/client/TwemproxyStats.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QTimer>
#include <memory>

namespace tollgate {

namespace {

// A pool's object holds its counters and one object per backend; the document's top level
// holds the proxy's fields and one object per pool.
bool isPool(const QJsonValue& value)
{
    return value.isObject() && value.toObject().contains(QStringLiteral("server_ejects"));
}

TwemproxyServerStats serverStats(const QString& name, const QJsonObject& object)
{
    TwemproxyServerStats server;
    server.name = name;
    auto figure = [&object](const char* key) {
        return object.value(QLatin1String(key)).toInteger();
    };
    server.ejectedAt = figure("server_ejected_at");
    server.errors = figure("server_err");
    server.timeouts = figure("server_timedout");
    server.closedByServer = figure("server_eof");
    server.connections = figure("server_connections");
    server.requests = figure("requests");
    server.responses = figure("responses");
    return server;
}

} // namespace

const TwemproxyServerStats* TwemproxyPoolStats::server(const QString& name) const
{
    for (const TwemproxyServerStats& s : servers)
        if (s.name == name)
            return &s;
    return nullptr;
}

Result<TwemproxyPoolStats> TwemproxyPoolStats::parse(const QByteArray& json, const QString& pool)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (!document.isObject() || document.object().value(QStringLiteral("service")).toString() !=
                                    QLatin1String("nutcracker"))
        return Error{ErrorKind::Protocol,
                     QStringLiteral("not nutcracker's stats (") +
                         (document.isObject() ? QStringLiteral("no \"service\": \"nutcracker\"")
                                              : error.errorString()) +
                         QLatin1Char(')')};
    const QJsonObject top = document.object();
    QString name = pool;
    if (name.isEmpty()) {
        for (auto it = top.begin(); it != top.end(); ++it) {
            if (!isPool(it.value()))
                continue;
            if (!name.isEmpty())
                return Error{ErrorKind::InvalidInput,
                             QStringLiteral("nutcracker serves several pools (") + name +
                                 QStringLiteral(", ") + it.key() +
                                 QStringLiteral("): name one with pool=")};
            name = it.key();
        }
    }
    if (!isPool(top.value(name)))
        return Error{ErrorKind::NotFound,
                     name.isEmpty() ? QStringLiteral("nutcracker's stats name no pool")
                                    : QStringLiteral("nutcracker's stats have no pool ") + name};
    const QJsonObject object = top.value(name).toObject();
    TwemproxyPoolStats stats;
    stats.pool = name;
    stats.version = top.value(QStringLiteral("version")).toString();
    stats.uptimeSeconds = top.value(QStringLiteral("uptime")).toInteger();
    stats.ejections = object.value(QStringLiteral("server_ejects")).toInteger();
    stats.forwardErrors = object.value(QStringLiteral("forward_error")).toInteger();
    stats.clientConnections = object.value(QStringLiteral("client_connections")).toInteger();
    for (auto it = object.begin(); it != object.end(); ++it)
        if (it.value().isObject())
            stats.servers.push_back(serverStats(it.key(), it.value().toObject()));
    return stats;
}

void readTwemproxyStats(const NodeAddress& address, const QString& pool, int deadlineMs,
                        QObject* context, std::function<void(Result<TwemproxyPoolStats>)> done)
{
    // The socket lives in the context's thread and is gone with it; `done` runs at most once.
    auto* socket = new QTcpSocket(context);
    auto* deadline = new QTimer(socket);
    auto answer =
        std::make_shared<std::function<void(Result<TwemproxyPoolStats>)>>(std::move(done));
    auto finish = [socket, answer](Result<TwemproxyPoolStats> result) {
        if (!*answer)
            return;
        auto call = std::move(*answer);
        *answer = nullptr;
        socket->disconnect();
        socket->abort();
        socket->deleteLater();
        call(std::move(result));
    };
    const QString where = QStringLiteral("nutcracker stats at ") + address.text();
    deadline->setSingleShot(true);
    QObject::connect(deadline, &QTimer::timeout, socket, [finish, where, deadlineMs] {
        finish(Error{ErrorKind::Timeout,
                     where + QStringLiteral(": no answer within %1 ms").arg(deadlineMs)});
    });
    auto read = std::make_shared<QByteArray>();
    QObject::connect(socket, &QTcpSocket::readyRead, socket,
                     [socket, read] { read->append(socket->readAll()); });
    // The proxy writes the whole document and closes: what was read by then is the answer.
    QObject::connect(socket, &QTcpSocket::disconnected, socket,
                     [socket, read, finish, pool, where] {
                         const QByteArray json = *read + socket->readAll();
                         Result<TwemproxyPoolStats> stats = TwemproxyPoolStats::parse(json, pool);
                         if (!stats)
                             finish(Error{stats.error().kind,
                                          where + QStringLiteral(": ") + stats.error().message});
                         else
                             finish(std::move(stats));
                     });
    QObject::connect(
        socket, &QTcpSocket::errorOccurred, socket,
        [socket, finish, where](QAbstractSocket::SocketError code) {
            if (code == QAbstractSocket::RemoteHostClosedError)
                return; // the end of the document: disconnected() reads it
            finish(Error{ErrorKind::Io, where + QStringLiteral(": ") + socket->errorString()});
        });
    deadline->start(deadlineMs);
    socket->connectToHost(address.host, address.port);
}

} // namespace tollgate
