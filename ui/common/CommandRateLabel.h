#pragma once

#include <QLabel>
#include <QPointer>
#include <QTimer>

namespace tollgate {
class Client;
}

namespace tollgate::ui {

/// "Load: 1,234 commands/s" in the window's status bar: the commands the console sent to
/// Redis in the last second, with those its scripts run inside (Client::commandCount), the
/// load every page is held to. Samples once a second; shows nothing without a client.
class CommandRateLabel : public QLabel
{
    Q_OBJECT
public:
    explicit CommandRateLabel(QWidget* parent = nullptr);

    /// The client to watch (not owned; it must outlive this label or be replaced first).
    void setClient(Client* client);
    /// Commands in the last whole second sampled.
    qint64 rate() const { return m_rate; }

private:
    void sample();

    Client* m_client = nullptr;
    QTimer m_timer;
    quint64 m_last = 0;
    bool m_primed = false; // m_last holds a sample of this client
    qint64 m_rate = 0;
};

} // namespace tollgate::ui
