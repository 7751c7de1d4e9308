#include "core/redis/Connection.h"

#ifdef TOLLGATE_LINUX_IO
#include "core/redis/ErrorReply.h"
#include "core/redis/TcpStream.h"
#endif

#include <QFile>
#include <QLocalSocket>
#include <QRandomGenerator>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpSocket>
#include <algorithm>

namespace tollgate {

namespace {
// Connections of this thread with commands in flight (each Connection lives on one thread).
thread_local int t_busyConnections = 0;
} // namespace

QString connectionStateName(ConnectionState state)
{
    switch (state) {
    case ConnectionState::Disconnected:
        return QStringLiteral("disconnected");
    case ConnectionState::Connecting:
        return QStringLiteral("connecting");
    case ConnectionState::Connected:
        return QStringLiteral("connected");
    case ConnectionState::Reconnecting:
        return QStringLiteral("reconnecting");
    }
    return {};
}

namespace {

Result<QSslKey> readPrivateKey(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{ErrorKind::Io, QStringLiteral("cannot read TLS key file ") + path};
    const QByteArray pem = file.readAll();
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey key(pem, algorithm, QSsl::Pem);
        if (!key.isNull())
            return key;
    }
    return Error{ErrorKind::Io, QStringLiteral("not a PEM private key: ") + path};
}

Result<QSslConfiguration> tlsConfiguration(const TlsOptions& tls)
{
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    if (!tls.caFile.isEmpty()) {
        const auto cas = QSslCertificate::fromPath(tls.caFile, QSsl::Pem);
        if (cas.isEmpty())
            return Error{ErrorKind::Io, QStringLiteral("cannot read CA file ") + tls.caFile};
        config.setCaCertificates(cas);
    }
    if (!tls.certFile.isEmpty()) {
        const auto certs = QSslCertificate::fromPath(tls.certFile, QSsl::Pem);
        if (certs.isEmpty())
            return Error{ErrorKind::Io,
                         QStringLiteral("cannot read certificate file ") + tls.certFile};
        config.setLocalCertificate(certs.first());
        auto key = readPrivateKey(tls.keyFile.isEmpty() ? tls.certFile : tls.keyFile);
        if (!key)
            return key.error();
        config.setPrivateKey(*key);
    }
    config.setPeerVerifyMode(tls.verifyPeer ? QSslSocket::VerifyPeer : QSslSocket::VerifyNone);
    return config;
}

} // namespace

Connection::Connection(ServerOptions options, std::shared_ptr<Tunnel> tunnel)
    : m_options(std::move(options)), m_connectTimer(new QTimer(this)),
      m_deadlineTimer(new QTimer(this)), m_reconnectTimer(new QTimer(this)),
      m_heartbeatTimer(new QTimer(this))
{
    m_connectTimer->setSingleShot(true);
    m_reconnectTimer->setSingleShot(true);
    // Fires when the earliest command is due, to the millisecond (not a coarse poll: a decision
    // waiting on a frozen server must get its failure answer at its deadline, not up to a poll
    // interval later).
    m_deadlineTimer->setSingleShot(true);
    m_deadlineTimer->setTimerType(Qt::PreciseTimer);
    connect(m_connectTimer, &QTimer::timeout, this, [this] {
        dropConnection({ErrorKind::Timeout, QStringLiteral("connecting to %1 timed out after %2 ms")
                                                .arg(endpoint())
                                                .arg(m_options.connectTimeout.count())});
    });
    connect(m_reconnectTimer, &QTimer::timeout, this, &Connection::startAttempt);
    connect(m_deadlineTimer, &QTimer::timeout, this, &Connection::checkDeadlines);
    connect(m_heartbeatTimer, &QTimer::timeout, this, &Connection::checkHeartbeat);
    m_clock.start();
    m_tunnel = std::move(tunnel);
}

Connection::~Connection()
{
    m_options.autoReconnect = false;
    const Error closed{ErrorKind::Closed, QStringLiteral("client closed")};
    if (m_state == ConnectionState::Connecting)
        m_state = ConnectionState::Disconnected;
    // What was submitted last (a final statistics flush) still leaves before the socket goes.
    if (m_state == ConnectionState::Connected)
        flushOutput();
    dropConnection(closed);
    failWaiting(closed);
}

void Connection::open()
{
    if (m_state != ConnectionState::Disconnected)
        return;
    setState(ConnectionState::Connecting);
    startAttempt();
}

void Connection::submit(EncodedCommand command, Done done)
{
    switch (m_state) {
    case ConnectionState::Connected:
        if (!m_waiting.empty() || int(m_inFlight.size()) >= m_options.maxInFlight) {
            hold(std::move(command), std::move(done));
            return;
        }
        if (command.subscribes())
            m_pushMode = true;
        write(command, std::move(done));
        return;
    case ConnectionState::Connecting:
        hold(std::move(command), std::move(done));
        return;
    case ConnectionState::Disconnected:
    case ConnectionState::Reconnecting:
        // Fail fast: a caller must never hang on a server that is not there.
        done(notConnected());
        return;
    }
}

void Connection::hold(EncodedCommand command, Done done)
{
    if (int(m_waiting.size()) >= m_options.maxQueued) {
        done(Error{ErrorKind::Busy,
                   QStringLiteral("%1 commands already wait for %2: try again later")
                       .arg(m_inFlight.size() + m_waiting.size())
                       .arg(endpoint())});
        return;
    }
    m_waiting.push_back({std::move(command), std::move(done)});
}

void Connection::releaseHeld()
{
    while (!m_waiting.empty() && m_state == ConnectionState::Connected &&
           int(m_inFlight.size()) < m_options.maxInFlight) {
        Waiting next = std::move(m_waiting.front());
        m_waiting.pop_front();
        if (next.command.subscribes())
            m_pushMode = true;
        write(next.command, std::move(next.done));
    }
}

Error Connection::notConnected() const
{
    // A connection that never came up (no automatic reconnect) answers with what stopped it:
    // "connection refused", "cannot read CA file", not a bare "not connected".
    if (m_state == ConnectionState::Disconnected && m_cause)
        return *m_cause;
    QString message = QStringLiteral("not connected to ") + endpoint() +
                      QStringLiteral(" (") + connectionStateName(m_state) + QLatin1Char(')');
    if (m_cause)
        message += QStringLiteral(": ") + m_cause->toString();
    return {ErrorKind::Closed, message};
}

void Connection::openLocalSocket(const QString& path)
{
    auto* socket = new QLocalSocket;
    m_device.reset(socket);
    m_socketKind.store(SocketKind::QtLocal, std::memory_order_relaxed);
    connect(socket, &QLocalSocket::connected, this, &Connection::onTransportReady);
    connect(socket, &QLocalSocket::errorOccurred, this, [this, socket] {
        onTransportError({ErrorKind::Io, endpoint() + QStringLiteral(": ") +
                                             socket->errorString() + tunnelHint()});
    });
    connect(socket, &QLocalSocket::readyRead, this, &Connection::onReadyRead);
    socket->connectToServer(path);
}

Status Connection::createDevice(const QString& tunnelSocket)
{
    m_tlsErrors.clear();
    if (m_options.transport == ServerOptions::Transport::Unix) {
        openLocalSocket(m_options.socketPath);
        return Unit{};
    }
    if (!tunnelSocket.isEmpty() && !m_options.tls.enabled) {
        openLocalSocket(tunnelSocket);
        return Unit{};
    }

    QTcpSocket* socket = nullptr;
    if (m_options.tls.enabled) {
        auto config = tlsConfiguration(m_options.tls);
        if (!config)
            return config.error();
        auto* ssl = new QSslSocket;
        ssl->setSslConfiguration(*config);
        connect(ssl, &QSslSocket::encrypted, this, &Connection::onTransportReady);
        connect(ssl, &QSslSocket::sslErrors, this, [this](const QList<QSslError>& errors) {
            QStringList texts;
            for (const QSslError& e : errors)
                texts << e.errorString();
            m_tlsErrors = texts.join(QStringLiteral("; "));
        });
        socket = ssl;
    } else {
        socket = new QTcpSocket;
        connect(socket, &QTcpSocket::connected, this, &Connection::onTransportReady);
    }
    m_device.reset(socket);
    m_socketKind.store(m_options.tls.enabled ? SocketKind::QtTls : SocketKind::QtTcp,
                       std::memory_order_relaxed);
    connect(socket, &QAbstractSocket::errorOccurred, this, [this, socket] {
        QString message = endpoint() + QStringLiteral(": ") + socket->errorString();
        if (!m_tlsErrors.isEmpty())
            message += QStringLiteral(" (TLS: ") + m_tlsErrors + QLatin1Char(')');
        message += tunnelHint();
        onTransportError({ErrorKind::Io, message});
    });
    connect(socket, &QTcpSocket::readyRead, this, &Connection::onReadyRead);
    if (auto* ssl = qobject_cast<QSslSocket*>(socket)) {
        const QString peer =
            m_options.tls.serverName.isEmpty() ? m_options.host : m_options.tls.serverName;
        if (!tunnelSocket.isEmpty())
            return startTlsOverUnixSocket(ssl, tunnelSocket, peer);
        ssl->connectToHostEncrypted(m_options.host, m_options.port, peer);
    } else {
        socket->connectToHost(m_options.host, m_options.port);
    }
    return Unit{};
}

void Connection::startAttempt()
{
    m_parser.reset();
    m_output.clear();
    m_handshakeDone = false;
    m_pushMode = false;
    m_connectTimer->start(m_options.connectTimeout);
    // Then createDevice(): on a Sentinel deployment once the sentinels answered, through an
    // SSH tunnel once it has a forward to the server (ConnectionTunnel.cpp).
    connectToServer();
}

void Connection::connectDevice(const QString& tunnelSocket)
{
    m_connectTimer->start(m_options.connectTimeout);
    const Status created = createDevice(tunnelSocket);
    if (!created)
        dropConnection(created.error());
}

void Connection::onTransportReady()
{
    m_connectTimer->stop();
    m_lastReadMs = m_clock.elapsed(); // silence is counted from here, not from the last connection
    if (auto* tcp = qobject_cast<QTcpSocket*>(m_device.get())) {
        tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        tcp->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
        if (!qobject_cast<QSslSocket*>(tcp) &&
            TransportSwitches::fromEnvironment().tcpStream == TcpStreamKind::Raw)
            adoptPlainSocket(tcp);
    }
    sendHandshake();
}

void Connection::adoptPlainSocket(QTcpSocket* socket)
{
#ifdef TOLLGATE_LINUX_IO
    TcpStream* stream = TcpStream::adopt(socket);
    if (!stream)
        return; // the QTcpSocket goes on: slower, not wrong
    socket->disconnect(this);
    socket->abort(); // closes Qt's descriptor only: the connection lives on in the stream's
    m_device.release()->deleteLater();
    m_device.reset(stream);
    m_socketKind.store(SocketKind::RawTcp, std::memory_order_relaxed);
    connect(stream, &TcpStream::readyRead, this, &Connection::onReadyRead);
    connect(stream, &TcpStream::failed, this, [this](const QString& reason) {
        onTransportError({ErrorKind::Io, endpoint() + QStringLiteral(": ") + reason});
    });
#else
    Q_UNUSED(socket) // TcpStreamKind::Raw is never chosen in this build
#endif
}

void Connection::sendHandshake()
{
    // Pipelined: AUTH, SELECT, CLIENT SETNAME, then PING marks the end. Any failure
    // except SETNAME (an ACL may forbid it) drops the attempt with that error. A NOPERM
    // answer to PING still proves an authenticated, working connection: a plain `+@read`
    // user may not PING.
    const WriteBatch batch(this);
    QIODevice* device = m_device.get();
    auto failOn = [this, device](const Result<Reply>& r) {
        if (!r && device == m_device.get())
            dropConnection(r.error());
    };
    // A named ACL user always authenticates (a nopass user accepts any password).
    if (!m_options.password.isEmpty() || !m_options.user.isEmpty()) {
        Command auth{QByteArrayLiteral("AUTH")};
        if (!m_options.user.isEmpty())
            auth << m_options.user.toUtf8();
        auth << m_options.password.toUtf8();
        write(auth, failOn);
    }
    if (m_options.database != 0)
        write({QByteArrayLiteral("SELECT"), QByteArray::number(m_options.database)}, failOn);
    if (!m_options.clientName.isEmpty())
        write({QByteArrayLiteral("CLIENT"), QByteArrayLiteral("SETNAME"),
               m_options.clientName.toUtf8()},
              [](const Result<Reply>&) {});
    const std::optional<Command> check = m_locator ? m_locator->handshakeCheck() : std::nullopt;
    if (check)
        write(*check, [this, device](const Result<Reply>& reply) {
            if (device == m_device.get())
                checkServer(reply);
        });
    write({QByteArrayLiteral("PING")}, [this, device](const Result<Reply>& r) {
        if (device != m_device.get())
            return;
        if (!r && r.error().kind != ErrorKind::NoPerm) {
            dropConnection(r.error());
            return;
        }
        m_handshakeDone = true;
        m_attempt = 0;
        m_cause.reset();
        m_lastReadMs = m_clock.elapsed();
        if (m_options.heartbeatInterval.count() > 0)
            m_heartbeatTimer->start(std::max<qint64>(10, m_options.heartbeatInterval.count() / 4));
        setState(ConnectionState::Connected);
        releaseHeld(); // what waited for the connection, up to maxInFlight
    });
}

void Connection::appendOutput(const QByteArray& bytes)
{
    m_output.append(bytes);
    if (!m_deadlineTimer->isActive())
        armDeadline(m_clock.elapsed() + m_options.commandTimeout.count() + 1);
    if (m_batchDepth > 0) {
        // A long batch leaves in parts when no other connection of this thread keeps the server
        // busy: it starts on the first commands while the callbacks still make the rest. One
        // connection with 16 hits in flight: 88k -> 125-133k hits/s. With several, one write
        // per batch costs less (README "The hit path at the limit").
        if (m_output.size() >= kEagerFlushBytes && t_busyConnections <= 1)
            flushOutput();
        return;
    }
    if (m_flushPosted)
        return;
    // On its own: wait for the rest of this turn of the event loop, then one write.
    m_flushPosted = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_flushPosted = false;
            flushOutput();
        },
        Qt::QueuedConnection);
}

void Connection::noteBusy()
{
    const bool busy = !m_inFlight.empty();
    if (busy != m_countedBusy) {
        t_busyConnections += busy ? 1 : -1;
        m_countedBusy = busy;
    }
}

void Connection::onReadyRead()
{
    if (!m_device)
        return;
    // Commands the callbacks below chain leave in one write when they are done.
    const WriteBatch batch(this);
    // Straight from the socket's buffer into the parser, without a QByteArray per read.
    if (m_readChunk.isEmpty())
        m_readChunk.resize(64 * 1024);
    for (;;) {
        const qint64 got = m_device->read(m_readChunk.data(), m_readChunk.size());
        if (got <= 0)
            break;
        m_lastReadMs = m_clock.elapsed();
        m_parser.feed(QByteArray::fromRawData(m_readChunk.constData(), qsizetype(got)));
        if (got < m_readChunk.size())
            break;
    }
    QIODevice* device = m_device.get();
    while (device == m_device.get()) {
        auto next = m_parser.next();
        if (!next) {
            dropConnection(next.error());
            return;
        }
        if (!next->has_value())
            return;
        Reply reply = std::move(**next);
        if (m_pushMode && handlePush(reply))
            continue;
        if (m_inFlight.empty()) {
            dropConnection({ErrorKind::Protocol, QStringLiteral("unexpected reply from server")});
            return;
        }
        InFlight request = std::move(m_inFlight.front());
        m_inFlight.pop_front();
        m_checkedFront -= m_checkedFront > 0 ? 1 : 0;
        noteBusy();
        // The deadline timer stops itself once nothing is in flight (checkDeadlines).
        releaseHeld(); // a slot is free: in the same write as what the callbacks chain
        if (!request.waits())
            continue; // the reply of a command that already failed with Timeout
        if (reply.type == Reply::Type::Error) {
            request.fail(classifyErrorReply(reply.string));
            noteErrorReply(reply.string);
        } else if (request.batch) {
            request.batch->settle(request.index, std::move(reply));
        } else {
            request.done(std::move(reply));
        }
    }
}

bool Connection::handlePush(const Reply& reply)
{
    if (!reply.isArray() || reply.elements.size() < 3)
        return false;
    const QByteArray kind = reply.elements[0].string;
    if (kind == "message") {
        Q_EMIT pushReceived(reply.elements[1].string, reply.elements[2].string, {});
        return true;
    }
    if (kind == "pmessage" && reply.elements.size() == 4) {
        Q_EMIT pushReceived(reply.elements[2].string, reply.elements[3].string,
                            reply.elements[1].string);
        return true;
    }
    return false;
}

void Connection::onTransportError(const Error& error)
{
    dropConnection(error);
}

void Connection::dropConnection(const Error& error)
{
    // Keep the first real cause: a drop while already down (the destructor) adds nothing.
    if (m_device || m_state == ConnectionState::Connecting || !m_cause)
        m_cause = error;
    m_connectTimer->stop();
    m_deadlineTimer->stop();
    m_heartbeatTimer->stop();
    m_output.clear(); // their commands are in m_inFlight and fail below
    if (m_device) {
        m_device->disconnect(this);
        if (auto* socket = qobject_cast<QAbstractSocket*>(m_device.get()))
            socket->abort();
        else if (auto* local = qobject_cast<QLocalSocket*>(m_device.get()))
            local->abort();
        else
            m_device->close(); // a TcpStream: its descriptor goes now
        // Never delete a socket inside its own signal handler.
        m_device.release()->deleteLater();
        m_socketKind.store(SocketKind::None, std::memory_order_relaxed);
    }
    // State first: callbacks below may submit again and must see "not connected".
    if (m_options.autoReconnect) {
        setState(ConnectionState::Reconnecting, error);
        scheduleReconnect();
    } else {
        setState(ConnectionState::Disconnected, error);
    }
    auto inFlight = std::move(m_inFlight);
    m_inFlight.clear();
    m_checkedFront = 0;
    noteBusy();
    for (InFlight& request : inFlight)
        request.fail(error); // nothing for those that already failed with Timeout
    failWaiting(error); // waiting for the first connect, or held back by maxInFlight
}

void Connection::failWaiting(const Error& error)
{
    auto waiting = std::move(m_waiting);
    m_waiting.clear();
    for (Waiting& w : waiting)
        w.done(error);
}

void Connection::scheduleReconnect()
{
    const qint64 base = m_options.reconnectMinDelay.count() << std::min(m_attempt, 16);
    const qint64 capped = std::min<qint64>(base, m_options.reconnectMaxDelay.count());
    // +-20% jitter so many consoles do not reconnect in lockstep.
    const double jitter = 0.8 + 0.4 * QRandomGenerator::global()->generateDouble();
    ++m_attempt;
    m_reconnectTimer->start(std::max<qint64>(1, static_cast<qint64>(capped * jitter)));
}

void Connection::setState(ConnectionState state, const Error& error)
{
    if (m_state == state && state != ConnectionState::Reconnecting)
        return;
    const bool changed = m_state != state;
    m_state = state;
    if (changed || !error.message.isEmpty())
        Q_EMIT stateChanged(state, error);
}

} // namespace tollgate
