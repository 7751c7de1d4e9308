#include "ui/common/CommandRateLabel.h"

#include "tollgate/Client.h"

#include <QLocale>

namespace tollgate::ui {

CommandRateLabel::CommandRateLabel(QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("commandRateLabel"));
    setToolTip(tr("Commands the console sent to Redis in the last second, with those its "
                  "scripts run inside: the load it puts on the server"));
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &CommandRateLabel::sample);
}

void CommandRateLabel::setClient(Client* client)
{
    m_client = client;
    m_primed = false;
    m_rate = 0;
    clear();
    if (client) {
        m_timer.start();
        sample();
    } else {
        m_timer.stop();
    }
}

void CommandRateLabel::sample()
{
    if (!m_client)
        return;
    const quint64 now = m_client->commandCount();
    m_rate = m_primed ? qint64(now - m_last) : 0;
    m_last = now;
    m_primed = true;
    setText(tr("Load: %1 commands/s").arg(QLocale().toString(m_rate)));
}

} // namespace tollgate::ui
