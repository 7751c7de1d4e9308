#include "ui/connection/ConnectionBanner.h"

#include "ui/common/Palette.h"
#include "ui/common/Session.h"
#include "ui/connection/ServerText.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>

namespace tollgate::ui {

ConnectionBanner::ConnectionBanner(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("connectionBanner"));
    setFrameShape(QFrame::NoFrame);
    setAutoFillBackground(true);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("bannerLabel"));
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_label->setWordWrap(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 5, 10, 5);
    layout->addWidget(m_label);
    setLook(Look::Idle, tr("Not connected"));
    qApp->installEventFilter(this); // for the application's palette change (eventFilter)
}

void ConnectionBanner::setSession(Session* session)
{
    disconnect(m_connection);
    disconnect(m_responsiveness);
    m_session = session;
    m_wasConnected = false;
    if (!session) {
        setLook(Look::Idle, tr("Not connected"));
        return;
    }
    m_connection =
        connect(session, &Session::stateChanged, this, &ConnectionBanner::onStateChanged);
    m_responsiveness = connect(session, &Session::responsivenessChanged, this, [this] {
        onStateChanged(m_session->state(), m_session->client()->lastError());
    });
    onStateChanged(session->state(), session->client()->lastError());
}

QString ConnectionBanner::text() const
{
    return m_label->text();
}

void ConnectionBanner::onStateChanged(ConnectionState state, const Error& error)
{
    if (!m_session)
        return;
    const Session::Settings& settings = m_session->settings();
    const QString endpoint = settings.connection.endpoint();
    const QString user =
        settings.connection.user.isEmpty() ? QStringLiteral("default") : settings.connection.user;
    switch (state) {
    case ConnectionState::Disconnected:
        setLook(Look::Idle, tr("Not connected to %1").arg(endpoint));
        break;
    case ConnectionState::Connecting:
        setLook(Look::Connecting, tr("Connecting to %1\u2026").arg(endpoint));
        break;
    case ConnectionState::Connected: {
        m_wasConnected = true;
        if (!m_session->isResponsive()) {
            setLook(Look::NotResponding,
                    tr("%1 (%2): the figures shown are from before, writes are off until it "
                       "answers")
                        .arg(m_session->notRespondingText(), serverText(*m_session->client())));
            break;
        }
        // The server itself: on a Sentinel deployment the one the sentinels named.
        QString text = tr("Connected to %1 as %2").arg(serverText(*m_session->client()), user);
        if (settings.connection.database != 0)
            text += tr(", database %1").arg(settings.connection.database);
        if (settings.readOnly)
            text += tr(" (read-only)");
        setLook(Look::Connected, text);
        break;
    }
    case ConnectionState::Reconnecting: {
        QString why = error.message.isEmpty() ? tr("connection lost") : error.message;
        // Core's messages name the endpoint themselves ("127.0.0.1:1: Connection refused"):
        // say the address once.
        if (why.startsWith(endpoint + QStringLiteral(": ")))
            why = why.mid(endpoint.size() + 2);
        const bool named = why.contains(endpoint);
        // Wrong credentials will not fix themselves: say "failed", but the client keeps
        // trying, so a password changed on the server side still recovers.
        if (error.kind == ErrorKind::Auth || !m_wasConnected)
            setLook(Look::Failed,
                    named ? tr("Cannot connect: %1 (retrying)").arg(why)
                          : tr("Cannot connect to %1: %2 (retrying)").arg(endpoint, why));
        else
            setLook(Look::Reconnecting,
                    named ? tr("Reconnecting: %1 (retrying)").arg(why)
                          : tr("Reconnecting to %1: %2 (retrying)").arg(endpoint, why));
        break;
    }
    }
}

bool ConnectionBanner::eventFilter(QObject* watched, QEvent* event)
{
    // Told to the application only: this widget's own palette is its style sheet's.
    if (watched == qApp && event->type() == QEvent::ApplicationPaletteChange)
        setLook(m_look, m_label->text());
    return QFrame::eventFilter(watched, event);
}

void ConnectionBanner::setLook(Look look, const QString& text)
{
    m_look = look;
    m_label->setText(text);
    QString background;
    QString foreground = QStringLiteral("#ffffff");
    switch (look) {
    case Look::Idle:
        background = QStringLiteral("#5f6368");
        break;
    case Look::Connecting:
        background = QStringLiteral("#1a73e8");
        break;
    case Look::Connected: // quiet: a pale strip on light desktops, a deep one on dark
        // The application's palette: this widget's own is rewritten by its style sheet.
        background = isDarkPalette() ? QStringLiteral("#1b3a26") : QStringLiteral("#e6f4ea");
        foreground = isDarkPalette() ? QStringLiteral("#b7e1c1") : QStringLiteral("#0d652d");
        break;
    case Look::NotResponding: // amber like Reconnecting, but readable on either palette
        background = isDarkPalette() ? QStringLiteral("#4d3800") : QStringLiteral("#fef0c7");
        foreground = isDarkPalette() ? QStringLiteral("#fdd663") : QStringLiteral("#6b4400");
        break;
    case Look::Reconnecting:
        background = QStringLiteral("#f9ab00");
        foreground = QStringLiteral("#202124");
        break;
    case Look::Failed:
        background = QStringLiteral("#c5221f");
        break;
    }
    setStyleSheet(
        QStringLiteral("#connectionBanner { background: %1; } #bannerLabel { color: %2; }")
            .arg(background, foreground));
    setProperty("look", int(look));
}

} // namespace tollgate::ui
