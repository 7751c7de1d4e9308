#pragma once

#include <QByteArray>
#include <QIODevice>

class QSocketNotifier;
class QTcpSocket;

namespace tollgate {

/// A connected plain TCP socket read and written straight through the kernel. A QTcpSocket
/// asks the kernel how much there is to read (FIONREAD) and copies every read into its own
/// buffer before we read it: one syscall and one copy more per reply batch, which is what a
/// hit at one round trip at a time pays most for after the round trip itself.
///
/// Connection lets QTcpSocket resolve the name and connect (its timeouts and error messages
/// stay Qt's), then adopts the connected descriptor. Lives on the thread that created it;
/// every method runs there.
class TcpStream : public QIODevice
{
    Q_OBJECT
public:
    /// Takes over the connection of a connected socket (a duplicate of its descriptor; the
    /// caller then aborts the socket, which closes only its own descriptor). nullptr when the
    /// descriptor cannot be duplicated: the caller keeps using the socket.
    static TcpStream* adopt(QTcpSocket* socket);

    ~TcpStream() override;

    bool isSequential() const override { return true; }
    qint64 bytesToWrite() const override { return m_pending.size(); }
    /// Closes the descriptor at once (no more signals).
    void close() override;

Q_SIGNALS:
    /// The server closed the connection or the socket failed. Emitted once, after the
    /// readyRead() that found it (so the replies read before it are delivered first), or on
    /// the next turn of the event loop when a write found it.
    void failed(const QString& reason);

protected:
    qint64 readData(char* data, qint64 maxSize) override;
    qint64 writeData(const char* data, qint64 size) override;

private:
    explicit TcpStream(int descriptor);
    void onReadable();
    void onWritable();
    void fail(const QString& reason, bool reportLater);
    qint64 sendSome(const char* data, qint64 size); // bytes sent, -1 on failure

    int m_descriptor;
    QSocketNotifier* m_readNotifier;  // children: they follow a moveToThread()
    QSocketNotifier* m_writeNotifier; // on only while m_pending holds bytes
    QByteArray m_pending;            // what the kernel did not take yet, in order
    QString m_failure;
    bool m_reported = false;
    bool m_inReadable = false; // readyRead() is being handled: a failure waits for its end
    bool m_readCalled = false; // during the last readyRead()
};

} // namespace tollgate
