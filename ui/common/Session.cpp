#include "ui/common/Session.h"

#include "core/cluster/ClusterEvents.h"
#include "core/cluster/Topology.h"
#include "core/keys/KeyLayout.h"
#include "core/scripts/PermissionCheck.h"
#include "tollgate/Moderation.h"
#include "ui/common/ResponsivenessWatch.h"

#include <QDir>
#include <QHash>
#include <QLocale>
#include <QSysInfo>

namespace tollgate::ui {

namespace {

/// What each write really runs, asked with can.lua (redis.acl_check_cmd): the script call, the
/// script reload after NOSCRIPT, and the commands inside the script on keys of our schema,
/// because Redis checks those only when the script runs. Placeholders keep key-pattern ACLs
/// honest. Every write, Keys-page deletes included, is one of the library's scripts.
QList<QPair<Session::Write, Command>> probes(const KeyLayout& layout)
{
    const KeySchema& schema = layout.schema();
    using W = Session::Write;
    const QByteArray sha(40, '0');
    const QByteArray state = schema.stateKey("probe", "probe", Algorithm::FixedWindow, 1000);
    const QByteArray ban = schema.userBanKey("probe");
    const QByteArray audit = schema.userAuditKey("probe");
    const QByteArray policy = layout.policyKey("probe");
    const Command evalsha{"EVALSHA", sha, "1", state};
    const Command load{"SCRIPT", "LOAD", "return 1"};
    const Command xadd{"XADD", audit, "*", "event", "probe"};
    // On a cluster the scripts mirror nothing: the "global" entry is the user's own stream,
    // and policy changes go to the {:} stream beside the policies.
    const Command global{"XADD", layout.auditMirror(audit), "*", "event", "probe"};
    const Command policyAudit{"XADD", layout.policyAuditKey(), "*", "event", "probe"};
    const Command publish{"PUBLISH", schema.eventsChannel(), "probe"};
    QList<QPair<W, Command>> list;
    const QByteArray overrides = schema.overridesKey("probe");
    for (W write : {W::Ban, W::Unban, W::Reset, W::EditPolicy, W::DeleteKey, W::RepairKey,
                    W::RunScript, W::Override})
        list << qMakePair(write, evalsha) << qMakePair(write, load);
    for (W write : {W::Ban, W::Unban, W::Reset, W::DeleteKey, W::RepairKey, W::Override})
        list << qMakePair(write, global);
    list << qMakePair(W::EditPolicy, policyAudit);
    for (W write : {W::Ban, W::Unban, W::Reset, W::DeleteKey, W::Override})
        list << qMakePair(write, xadd) << qMakePair(write, publish);
    // override_set.lua / override_delete.lua, and the index (on a cluster kept by the client).
    const QByteArray index = layout.overrideIndexKey();
    list << qMakePair(W::Override, Command{"HSET", overrides, "probe", "probe"})
         << qMakePair(W::Override, Command{"HDEL", overrides, "probe"})
         << qMakePair(W::Override, Command{"PEXPIREAT", overrides, "1"})
         << qMakePair(W::Override, Command{"PERSIST", overrides})
         << qMakePair(W::Override, Command{"DEL", overrides})
         << qMakePair(W::Override, Command{"ZADD", index, "1", "probe"})
         << qMakePair(W::Override, Command{"ZREM", index, "probe"})
         << qMakePair(W::Override, Command{"ZREMRANGEBYSCORE", index, "-inf", "0"});
    list << qMakePair(W::Ban, Command{"HSET", ban, "reason", "probe"})
         << qMakePair(W::Ban, Command{"PEXPIREAT", ban, "1"})
         << qMakePair(W::Unban, Command{"DEL", ban}) << qMakePair(W::Reset, Command{"DEL", state})
         << qMakePair(W::EditPolicy, Command{"HSET", policy, "windows", "probe"})
         << qMakePair(W::EditPolicy, Command{"DEL", policy})
         << qMakePair(W::EditPolicy, Command{"SADD", layout.policyIndexKey(), "*"})
         << qMakePair(W::EditPolicy,
                      Command{"XADD", layout.policyHistoryKey("probe"), "*", "f", "v"})
         << qMakePair(W::DeleteKey, Command{"DEL", state})
         << qMakePair(W::DeleteKey, Command{"DEL", ban})
         << qMakePair(W::RepairKey, Command{"PEXPIRE", state, "1"})
         << qMakePair(W::RepairKey, Command{"PEXPIREAT", ban, "1"});
    return list;
}

// "EVALSHA <sha> 1 tg:{probe}:..." -> "EVALSHA on tg:{probe}:...", for a tooltip.
QString describeProbe(const Command& command)
{
    QString text = QString::fromUtf8(command.value(0));
    if (command.value(0) == "SCRIPT" || command.value(0) == "CLIENT")
        return text + QLatin1Char(' ') + QString::fromUtf8(command.value(1));
    const QByteArray key = command.value(0) == "EVALSHA" ? command.value(3) : command.value(1);
    return key.isEmpty() ? text : text + QStringLiteral(" on ") + QString::fromUtf8(key);
}

} // namespace

Session::Session(Settings settings, QObject* parent)
    : QObject(parent), m_settings(std::move(settings)), m_schema(m_settings.prefix)
{
    if (m_settings.actor.isEmpty())
        m_settings.actor = defaultActor();
    m_client = std::make_unique<Client>(m_settings.connection);
    ConnectionOptions events = m_settings.connection;
    events.clientName += QStringLiteral("-events");
    m_events = std::make_unique<Client>(events);
    m_watch = new ResponsivenessWatch(m_client.get(), m_settings.responseDeadline, this);
    connect(m_watch, &ResponsivenessWatch::responsivenessChanged, this, [this](bool responsive) {
        Q_EMIT responsivenessChanged(responsive);
        // A check that timed out during the stall is asked again rather than left blocking.
        if (responsive && !m_permissionsUnknown.isEmpty() && m_connected)
            checkPermissions();
        Q_EMIT permissionsChanged(); // writes off while stalled, back on when it answers
    });

    connect(m_client.get(), &Client::stateChanged, this,
            [this](ConnectionState state, const Error& error) {
                const bool lost = m_connected && state != ConnectionState::Connected;
                m_connected = state == ConnectionState::Connected;
                m_watch->setConnected(m_connected);
                // Guard the writes before anyone hears "connected"; the check re-enables them.
                if (m_connected)
                    checkPermissions(); // emits permissionsChanged again when the server answered
                else if (lost)
                    Q_EMIT permissionsChanged(); // writes are off while not connected
                Q_EMIT stateChanged(state, error);
            });
    connect(m_events.get(), &Client::stateChanged, this, [this](ConnectionState state) {
        if (state == ConnectionState::Connected)
            subscribe(); // again after every reconnect
    });
    connect(m_events.get(), &Client::messageReceived, this, &Session::onMessage);
}

void Session::onMessage(const QByteArray& channel, const QByteArray& payload,
                        const QByteArray& pattern)
{
    if (!pattern.isEmpty()) { // "__keyspace@<db>__:<key>" -> operation
        Q_EMIT keyspaceChanged(channel.mid(channel.indexOf(':') + 1), payload);
        return;
    }
    if (const auto event = LimitEvent::parse(payload))
        Q_EMIT eventReceived(event->event, event->user, event->action);
}

Session::~Session() = default;

QString Session::defaultActor()
{
    // The audit must say who acted: the OS account and the machine it acted from.
    QString user;
    for (const char* variable : {"USER", "LOGNAME", "USERNAME" /* Windows */}) {
        if (user.isEmpty())
            user = qEnvironmentVariable(variable);
    }
    if (user.isEmpty()) // started without a login environment (services, xvfb-run)
        user = QDir::home().dirName();
    if (user.isEmpty() || user == QStringLiteral("/"))
        user = QStringLiteral("unknown");
    const QString host = QSysInfo::machineHostName();
    return host.isEmpty() ? user : user + QLatin1Char('@') + host;
}

void Session::open()
{
    m_client->open();
    m_events->open();
}

void Session::subscribe()
{
    m_events->execute({QByteArrayLiteral("SUBSCRIBE"), m_schema.eventsChannel()}, this,
                      [](const Result<Reply>&) {});
    subscribeKeyspace();
}

void Session::subscribeKeyspace()
{
    // Liveness from keyspace notifications only when the operator enabled them ('K' plus a
    // class covering our writes); CONFIG may be forbidden by the ACL, then polling does it.
    m_client->execute({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"),
                       QByteArrayLiteral("notify-keyspace-events")},
                      this, [this](Result<Reply> reply) {
                          const QByteArray flags = reply && reply->elements.size() == 2
                                                       ? reply->elements[1].toBytes()
                                                       : QByteArray();
                          const bool classes = flags.contains('A') || flags.contains('g') ||
                                               flags.contains('$') || flags.contains('x');
                          m_keyspaceNotifications = flags.contains('K') && classes;
                          if (!m_keyspaceNotifications)
                              return;
                          const QByteArray pattern =
                              "__keyspace@" + QByteArray::number(m_settings.connection.database) +
                              "__:" + m_schema.prefix() + ":{*";
                          if (m_client->isCluster())
                              followClusterKeyspace(pattern);
                          else
                              m_events->execute({QByteArrayLiteral("PSUBSCRIBE"), pattern}, this,
                                                [](const Result<Reply>&) {});
                      });
}

void Session::followClusterKeyspace(const QByteArray& pattern)
{
    discoverTopology(m_client.get(), this, [this, pattern](Result<std::optional<SlotMap>> map) {
        if (!map || !*map)
            return; // the pages poll instead
        if (!m_clusterKeyspace) {
            // No events channel here: m_events has it, and a PUBLISH reaches every node.
            m_clusterKeyspace =
                std::make_unique<ClusterEvents>(m_settings.connection, QByteArray(), pattern);
            connect(m_clusterKeyspace.get(), &ClusterEvents::messageReceived, this,
                    &Session::onMessage);
        }
        m_clusterKeyspace->follow(**map);
    });
}

bool Session::isResponsive() const
{
    return m_watch->isResponsive();
}

QDateTime Session::unresponsiveSince() const
{
    return m_watch->unresponsiveSince();
}

QString Session::notRespondingText() const
{
    return tr("Redis not responding since %1")
        .arg(QLocale().toString(unresponsiveSince().time(), QStringLiteral("HH:mm:ss")));
}

QString Session::writeBlockedReason(Write write) const
{
    if (m_settings.readOnly)
        return tr("The profile \"%1\" is read-only").arg(m_settings.profileName);
    if (state() != ConnectionState::Connected)
        return tr("Not connected to Redis");
    if (!isResponsive())
        return notRespondingText();
    if (!m_permissionsUnknown.isEmpty())
        return m_permissionsUnknown;
    return m_denied.value(write);
}

QString Session::aclUser() const
{
    return m_settings.connection.user.isEmpty() ? QStringLiteral("default")
                                                : m_settings.connection.user;
}

void Session::checkPermissions()
{
    const QString user = aclUser();
    // Until the server answers, the writes stay guarded: enabling them first would offer an
    // operator buttons the ACL may refuse.
    m_permissionsUnknown = tr("Checking what ACL user '%1' may write…").arg(user);
    Q_EMIT permissionsChanged();
    // The keys to ask about depend on the server's mode, known just after connecting.
    const Context self(this);
    KeyLayout::of(m_client.get(), m_schema, [this, self](const KeyLayout& layout) {
        self.post([this, layout] { checkPermissions(layout); });
    });
}

void Session::checkPermissions(const KeyLayout& layout)
{
    const QString user = aclUser();
    const auto checks = probes(layout);
    QList<Command> commands;
    for (const auto& check : checks)
        commands << check.second;
    checkCommands(
        m_client.get(), commands, this, [this, user, checks](Result<QList<bool>> allowed) {
            m_denied.clear();
            m_permissionsUnknown.clear();
            if (!allowed) {
                // No answer (a user who may not run scripts or load them, an older server, a
                // timeout): the writes stay disabled rather than fail half-way, and say why.
                m_permissionsUnknown =
                    tr("Could not check what ACL user '%1' may write (%2); writes stay disabled "
                       "until a check succeeds (reconnect to retry)")
                        .arg(user, allowed.error().toString());
                Q_EMIT permissionsChanged();
                return;
            }
            for (qsizetype i = 0; i < checks.size() && i < allowed->size(); ++i) {
                const Write write = checks[i].first;
                if (!allowed->at(i) && !m_denied.contains(write))
                    m_denied.insert(write, tr("ACL user '%1' may not do this: no permission for %2")
                                               .arg(user, describeProbe(checks[i].second)));
            }
            Q_EMIT permissionsChanged();
        });
}

} // namespace tollgate::ui
