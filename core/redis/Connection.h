#pragma once

#include "core/redis/BatchReplies.h"
#include "core/redis/Endpoint.h"
#include "core/redis/RespCodec.h"
#include "core/redis/Transport.h"
#include "tollgate/ServerOptions.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <deque>
#include <memory>

class QIODevice;
class QSslSocket;
class QTcpSocket;

namespace tollgate {

/// The I/O side of a Client: owns one socket and lives on the client's worker thread.
/// Every method runs on that thread; Client posts work to it. Commands are pipelined and
/// completed in order as replies come back. The commands submitted in one go (while the
/// replies of one read are dispatched, or one drain of the client's queue) are buffered and
/// leave in one socket write at its end; a command submitted on its own leaves at the next
/// turn of the event loop, together with any that join it meanwhile.
class Connection : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(Result<Reply>)>;

    /// Straight to the server of `options`, or through `tunnel` when there is one.
    explicit Connection(ServerOptions options, std::shared_ptr<Tunnel> tunnel = nullptr);
    ~Connection() override;

    /// Asks `locator` (which becomes a child) where the server is before every attempt,
    /// checks the server in the handshake and follows its relocated(). Before open().
    void setLocator(ServerLocator* locator);

    void open();
    void submit(EncodedCommand command, Done done);
    /// Every command of `pipeline` in one piece; the reply of its i-th command settles entry i
    /// of `replies` (beyond maxInFlight, or while connecting, they wait one by one).
    void submit(const EncodedPipeline& pipeline, const std::shared_ptr<BatchReplies>& replies);
    /// Connected or connecting: submit() will not fail the command on the spot.
    bool acceptsDirectly() const
    {
        return m_state == ConnectionState::Connected || m_state == ConnectionState::Connecting;
    }

    /// The server connected to (or tried last): the options' host and port, or the one the
    /// locator named (" via " the tunnel, through one). Worker thread only.
    QString endpoint() const;

    /// What the connection reads and writes through now. Any thread (for tests and tools).
    SocketKind socketKind() const { return m_socketKind.load(std::memory_order_relaxed); }

    /// Holds the writes of the commands submitted while it lives; one write at its end.
    class WriteBatch
    {
    public:
        explicit WriteBatch(Connection* connection) : m_connection(connection)
        {
            ++m_connection->m_batchDepth;
        }
        ~WriteBatch()
        {
            if (--m_connection->m_batchDepth == 0)
                m_connection->flushOutput();
        }
        WriteBatch(const WriteBatch&) = delete;
        WriteBatch& operator=(const WriteBatch&) = delete;

    private:
        Connection* m_connection;
    };

Q_SIGNALS:
    void stateChanged(tollgate::ConnectionState state, const tollgate::Error& error);
    /// Pub/sub push: pattern is empty for plain SUBSCRIBE messages.
    void pushReceived(const QByteArray& channel, const QByteArray& payload,
                      const QByteArray& pattern);

private:
    struct InFlight
    {
        Done done;
        qint64 deadlineMs = 0; // on m_clock; 0 = no deadline (subscriptions)
        // A pipeline's command instead of `done`: its reply settles entry `index` there.
        std::shared_ptr<BatchReplies> batch;
        size_t index = 0;
        bool waits() const { return done || batch; } // false: it already failed (Timeout)
        void fail(const Error& error);
    };
    struct Waiting
    {
        EncodedCommand command;
        Done done;
    };

    void startAttempt();
    void connectDevice(const QString& tunnelSocket); // empty: straight to the server
    Status createDevice(const QString& tunnelSocket);
    void openLocalSocket(const QString& path);
    // ConnectionTunnel.cpp: the server through an SSH tunnel's unix socket.
    void startThroughTunnel();
    QString tunnelHint() const; // what ssh said about the forward that failed, if anything
    static Status startTlsOverUnixSocket(QSslSocket* socket, const QString& path,
                                         const QString& peerName);
    // A locator (ConnectionLocator.cpp): where to connect is asked before every attempt, the
    // server is checked in the handshake, an error reply or a relocation makes it ask again.
    void connectToServer();
    void checkServer(const Result<Reply>& reply);
    void noteErrorReply(const QByteArray& text);
    void followRelocation(const NodeAddress& server);
    void onTransportReady();
    void adoptPlainSocket(QTcpSocket* socket); // reads and writes without Qt's buffers
    void onReadyRead();
    void onTransportError(const Error& error);
    void sendHandshake();
    void write(const EncodedCommand& command, Done done, bool withDeadline = true);
    void write(const Command& args, Done done)
    {
        write(EncodedCommand::fromArgs(args), std::move(done));
    }
    void appendOutput(const QByteArray& bytes); // then flushed as write() explains
    void flushOutput();
    void setState(ConnectionState state, const Error& error = {});
    void dropConnection(const Error& error);
    void scheduleReconnect();
    void checkDeadlines();
    /// The deadline timer fires at `dueMs` (on m_clock), unless it is set to fire sooner.
    void armDeadline(qint64 dueMs);
    void checkHeartbeat();
    /// Nothing read for this long while replies are owed: the connection is dead.
    qint64 silenceLimitMs() const;
    bool handlePush(const Reply& reply);
    void failWaiting(const Error& error);
    void hold(EncodedCommand command, Done done); // maxInFlight reached: wait, or Busy
    void releaseHeld();
    Error notConnected() const;

    ServerOptions m_options;
    ConnectionState m_state = ConnectionState::Disconnected;
    std::unique_ptr<QIODevice> m_device;
    std::atomic<SocketKind> m_socketKind{SocketKind::None}; // follows m_device
    RespParser m_parser;
    QByteArray m_output;    // encoded commands not yet handed to the socket
    QByteArray m_readChunk; // what one read of the socket lands in
    int m_batchDepth = 0;
    // Within a batch, what is written so far leaves once it reaches this size (~8 hits).
    static constexpr qsizetype kEagerFlushBytes = 2048;
    void noteBusy(); // after m_inFlight changes: keeps this thread's count of busy connections
    bool m_countedBusy = false;
    bool m_flushPosted = false;
    std::deque<InFlight> m_inFlight;
    // The first m_inFlight entries with nothing left to check (failed at their deadline, or
    // without one): a server silent under load leaves thousands, which checkDeadlines() then
    // need not walk each time it runs.
    size_t m_checkedFront = 0;
    // Submitted while the first connect is in progress, or beyond maxInFlight: sent in order
    // as the connection comes up and as replies free slots.
    std::deque<Waiting> m_waiting;
    // Children, so moveToThread() takes them along to the worker thread.
    QTimer* m_connectTimer;
    QTimer* m_deadlineTimer;
    qint64 m_deadlineDueMs = 0; // when m_deadlineTimer fires, on m_clock
    QTimer* m_reconnectTimer;
    QTimer* m_heartbeatTimer;
    QElapsedTimer m_clock;
    qint64 m_lastReadMs = 0; // on m_clock: the last bytes from the server
    int m_attempt = 0;
    bool m_handshakeDone = false;
    bool m_pushMode = false;
    QString m_tlsErrors;
    std::optional<Error> m_cause; // why the last attempt or connection ended
    std::shared_ptr<Tunnel> m_tunnel;   // shared with every connection through it
    quint64 m_tunnelRequest = 0;        // the attempt whose forward is awaited
    ServerLocator* m_locator = nullptr; // a child; only when the server moves (Sentinel)
    quint64 m_attemptSerial = 0;        // which attempt a locator's answer is for
};

} // namespace tollgate
