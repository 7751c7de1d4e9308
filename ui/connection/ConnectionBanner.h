#pragma once

#include "tollgate/Result.h"
#include "tollgate/ServerOptions.h"

#include <QFrame>
#include <QPointer>

class QLabel;

namespace tollgate::ui {

class Session;

/// The strip at the top of the window saying how the connection is: connecting, connected to
/// X as Y, reconnecting (why, retrying) or failing (why). Driven by Session::stateChanged; the
/// client retries by itself, so the banner turns green again when Redis comes back. A server
/// that keeps the connection but stops answering (paused, swamped) turns it amber: "Redis not
/// responding since hh:mm:ss" (Session::isResponsive).
class ConnectionBanner : public QFrame
{
    Q_OBJECT
public:
    enum class Look
    {
        Idle,
        Connecting,
        Connected,
        NotResponding,
        Reconnecting,
        Failed
    };
    Q_ENUM(Look)

    explicit ConnectionBanner(QWidget* parent = nullptr);

    /// Follows this session from now on (null = "not connected").
    void setSession(Session* session);
    Look look() const { return m_look; }
    QString text() const;

protected:
    /// View › Palette switches live: the quiet look's shades follow the application's palette.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void onStateChanged(ConnectionState state, const Error& error);
    void setLook(Look look, const QString& text);

    QPointer<Session> m_session;
    QMetaObject::Connection m_connection;
    QMetaObject::Connection m_responsiveness;
    QLabel* m_label;
    Look m_look = Look::Idle;
    bool m_wasConnected = false;
};

} // namespace tollgate::ui
