#pragma once

#include <QDateTime>
#include <QObject>
#include <chrono>

class QTimer;

namespace tollgate {
class Client;
}

namespace tollgate::ui {

/// Whether a connected Redis still answers. A paused or swamped server keeps its socket open,
/// so the connection state stays "connected" while every command waits: a PING every second
/// with a deadline of its own tells. The first probe left unanswered past the deadline makes
/// it unresponsive (since the probe was sent); the next answer of any kind, an error reply
/// included, makes it responsive again. Never waits: replies come back queued.
class ResponsivenessWatch : public QObject
{
    Q_OBJECT
public:
    ResponsivenessWatch(Client* client, std::chrono::milliseconds deadline,
                        QObject* parent = nullptr);

    /// Probing runs while the client is connected; stopping forgets any stall (a lost
    /// connection says more than "not responding").
    void setConnected(bool connected);

    bool isResponsive() const { return m_since.isNull(); }
    QDateTime unresponsiveSince() const { return m_since; }
    std::chrono::milliseconds deadline() const { return m_deadline; }

Q_SIGNALS:
    void responsivenessChanged(bool responsive);

private:
    void probe();
    void setSince(const QDateTime& since);

    Client* m_client;
    std::chrono::milliseconds m_deadline;
    QTimer* m_interval;
    QTimer* m_overdue;
    bool m_connected = false;
    bool m_inFlight = false;
    int m_probe = 0; // replies to older probes (or of an earlier connection) are ignored
    QDateTime m_sentAt;
    QDateTime m_since;
};

} // namespace tollgate::ui
