#include "ui/common/ResponsivenessWatch.h"

#include "tollgate/Client.h"

#include <QTimer>

namespace tollgate::ui {

ResponsivenessWatch::ResponsivenessWatch(Client* client, std::chrono::milliseconds deadline,
                                         QObject* parent)
    : QObject(parent), m_client(client), m_deadline(deadline), m_interval(new QTimer(this)),
      m_overdue(new QTimer(this))
{
    m_interval->setInterval(1000);
    connect(m_interval, &QTimer::timeout, this, &ResponsivenessWatch::probe);
    m_overdue->setSingleShot(true);
    connect(m_overdue, &QTimer::timeout, this, [this] {
        if (m_inFlight)
            setSince(m_sentAt);
    });
}

void ResponsivenessWatch::setConnected(bool connected)
{
    m_connected = connected;
    ++m_probe;
    m_inFlight = false;
    m_overdue->stop();
    setSince({});
    if (connected) {
        m_interval->start();
        probe();
    } else {
        m_interval->stop();
    }
}

void ResponsivenessWatch::probe()
{
    // One probe at a time: a paused server would otherwise collect a PING a second.
    if (!m_connected || m_inFlight)
        return;
    m_inFlight = true;
    m_sentAt = QDateTime::currentDateTime();
    const int id = ++m_probe;
    m_overdue->start(m_deadline);
    m_client->execute({QByteArrayLiteral("PING")}, this, [this, id](const Result<Reply>& reply) {
        if (id != m_probe)
            return;
        m_inFlight = false;
        m_overdue->stop();
        if (reply ||
            (reply.error().kind != ErrorKind::Timeout && reply.error().kind != ErrorKind::Closed &&
             reply.error().kind != ErrorKind::Io)) {
            setSince({}); // any answer, NOPERM included, proves the server alive
            return;
        }
        if (reply.error().kind != ErrorKind::Timeout)
            return; // the connection itself failed: the client's state says so
        // The client gave up on it: still stalled. Ask again at once, so the first moment the
        // server runs again is seen.
        setSince(m_since.isNull() ? m_sentAt : m_since);
        probe();
    });
}

void ResponsivenessWatch::setSince(const QDateTime& since)
{
    if (since.isNull() == m_since.isNull())
        return;
    m_since = since;
    Q_EMIT responsivenessChanged(since.isNull());
}

} // namespace tollgate::ui
