#pragma once

#include "core/keys/KeyLayout.h"
#include "tollgate/AuditLog.h"
#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "tollgate/PolicyStore.h"

namespace tollgate {
class ClusterEvents;
class KeyLayout;
} // namespace tollgate

#include <QDateTime>
#include <QObject>
#include <QSet>
#include <chrono>
#include <memory>

namespace tollgate::ui {

class ResponsivenessWatch;

/// What the console is connected to, shared by every page: the Redis client, the key schema,
/// the core services, who the operator is, and what they may write.
///
/// Pages never block on it: every service call takes a context object and a callback.
class Session : public QObject
{
    Q_OBJECT
public:
    /// A write the console can perform; pages disable the ones not allowed.
    enum class Write
    {
        Ban,
        Unban,
        Reset,
        EditPolicy,
        DeleteKey,
        RepairKey,
        RunScript,
        Override // set or delete a user's override (override_set.lua, override_delete.lua)
    };
    static constexpr int kWriteCount = int(Write::Override) + 1;

    struct Settings
    {
        ConnectionOptions connection;
        QByteArray prefix = QByteArrayLiteral("tg");
        QString actor;         // recorded in the audit trail; defaults to the OS user
        bool readOnly = false; // profile setting: disables every write
        QString profileName;
        // How long Redis may leave a probe unanswered before the console says it is not
        // responding (ResponsivenessWatch); kept under the command timeout so the console
        // says so before the pages' own commands fail.
        std::chrono::milliseconds responseDeadline{2000};
    };

    explicit Session(Settings settings, QObject* parent = nullptr);
    ~Session() override;

    /// The actor when the profile names none: "<OS user>@<host>".
    static QString defaultActor();

    /// Connects both the command and the pub/sub connections.
    void open();

    Client* client() const { return m_client.get(); }
    const KeySchema& schema() const { return m_schema; }
    Limiter limiter() const { return Limiter(client(), m_schema); }
    PolicyStore policies() const { return PolicyStore(client(), m_schema); }
    Moderation moderation() const { return Moderation(client(), m_schema); }
    AuditLog audit() const { return AuditLog(client(), m_schema); }
    OverrideStore overrides() const { return OverrideStore(client(), m_schema); }

    const Settings& settings() const { return m_settings; }
    QString actor() const { return m_settings.actor; }
    bool isReadOnly() const { return m_settings.readOnly; }
    ConnectionState state() const { return m_client->state(); }

    /// Empty when allowed; otherwise why not, for a tooltip ("read-only profile",
    /// "ACL user 'viewer' may not run EVALSHA").
    QString writeBlockedReason(Write write) const;
    bool canWrite(Write write) const { return writeBlockedReason(write).isEmpty(); }
    /// Non-empty when the server could not say what this user may write (not even through
    /// a read-only script): the reason, and every write is blocked with it.
    QString permissionsUnknownReason() const { return m_permissionsUnknown; }

    /// False while a connected Redis leaves commands unanswered past the response deadline (a
    /// paused or swamped server: the connection stays open). Writes are blocked meanwhile, with
    /// notRespondingText() as the reason; pages mark what they show as stale.
    bool isResponsive() const;
    /// When the unanswered command was sent; null while responsive.
    QDateTime unresponsiveSince() const;
    /// "Redis not responding since hh:mm:ss", the one wording the banner, the pages and the
    /// write buttons' tooltips share.
    QString notRespondingText() const;

    /// True when the server publishes keyspace notifications for our keys (its
    /// notify-keyspace-events setting; the console never turns it on by itself).
    bool hasKeyspaceNotifications() const { return m_keyspaceNotifications; }

Q_SIGNALS:
    void stateChanged(tollgate::ConnectionState state, const tollgate::Error& error);
    /// After connecting: the ACL user's rights were (re)checked.
    void permissionsChanged();
    /// Redis stopped answering within the response deadline, or answered again. Followed by
    /// permissionsChanged, so pages that guard writes re-evaluate without listening here.
    void responsivenessChanged(bool responsive);
    /// A message on <prefix>:events (policy changed, ban, unban, reset ...).
    void eventReceived(const QByteArray& event, const QByteArray& user, const QByteArray& action);
    /// A key under the prefix changed (keyspace notification), when the server has them on.
    void keyspaceChanged(const QByteArray& key, const QByteArray& operation);

private:
    void checkPermissions();
    void subscribe();
    void checkPermissions(const KeyLayout& layout);
    QString aclUser() const; // the ACL user's name, "default" when none is given
    void subscribeKeyspace();
    void followClusterKeyspace(const QByteArray& pattern);
    void onMessage(const QByteArray& channel, const QByteArray& payload, const QByteArray& pattern);

    Settings m_settings;
    KeySchema m_schema;
    std::unique_ptr<Client> m_client;
    std::unique_ptr<Client> m_events; // pub/sub needs a connection of its own
    ResponsivenessWatch* m_watch;     // probes m_client
    // On a cluster: keyspace notifications are node-local, so every primary is followed.
    std::unique_ptr<ClusterEvents> m_clusterKeyspace;
    QHash<Write, QString> m_denied; // write -> reason (from can.lua)
    QString m_permissionsUnknown;   // why the check found no answer; blocks every write
    bool m_keyspaceNotifications = false;
    bool m_connected = false; // as last reported by stateChanged
};

} // namespace tollgate::ui
