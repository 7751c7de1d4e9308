// The console's Session against a real redis-server: the events channel, keyspace
// notifications used only when the server has them on, and ACL permission checks.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Blocking.h"
#include "tollgate/Limiter.h"
#include "ui/common/Session.h"

#include <QSignalSpy>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class tst_Session : public QObject
{
    Q_OBJECT

private:
    static std::unique_ptr<Session> openSession(const RedisServer& server)
    {
        Session::Settings settings;
        settings.connection = *ConnectionOptions::fromUrl(server.url());
        settings.actor = QStringLiteral("tester");
        auto session = std::make_unique<Session>(settings);
        session->open();
        return session;
    }

    static Policy likePolicy()
    {
        Policy policy;
        policy.action = "like";
        policy.windows = {{5, 60'000}};
        return policy;
    }

private Q_SLOTS:
    void keyspaceNotificationsOffStayOff()
    {
        RedisServer server;
        TOLLGATE_REQUIRE(server, start());
        auto session = openSession(server);
        QTRY_COMPARE(session->state(), ConnectionState::Connected);
        QSignalSpy changed(session.get(), &Session::keyspaceChanged);
        QTRY_VERIFY(!session->client()
                         ->executeSync({"CONFIG", "GET", "notify-keyspace-events"})
                         ->elements.empty());
        QVERIFY(!session->hasKeyspaceNotifications());
        auto hit = waitFor<HitResult>(
            [&](auto done) { session->limiter().hit(likePolicy(), "alice", 1, nullptr, done); });
        QVERIFY(hit);
        QTest::qWait(200);
        QCOMPARE(changed.count(), 0);
        // The console never turns notifications on by itself.
        QCOMPARE(server.command({"CONFIG", "GET", "notify-keyspace-events"}),
                 QByteArray("*2\r\n$22\r\nnotify-keyspace-events\r\n$0\r\n\r\n"));
    }

    void keyspaceNotificationsOnDriveLiveness()
    {
        RedisServer server;
        TOLLGATE_REQUIRE(server,
                         start({QStringLiteral("--notify-keyspace-events"), QStringLiteral("KA")}));
        auto session = openSession(server);
        QTRY_VERIFY(session->hasKeyspaceNotifications());
        QSignalSpy changed(session.get(), &Session::keyspaceChanged);
        // The subscription is set up right after the check; hit until the first change arrives.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                auto hit = waitFor<HitResult>([&](auto done) {
                    session->limiter().hit(likePolicy(), "alice", 1, nullptr, done);
                });
                return hit.ok();
            }() &&
                !changed.isEmpty(),
            5000);
        const QByteArray key = changed.first().at(0).toByteArray();
        QVERIFY2(key.startsWith("tg:{alice}:like:"), key.constData());
    }

    void eventsChannelReportsBans()
    {
        RedisServer server;
        TOLLGATE_REQUIRE(server, start());
        auto session = openSession(server);
        QTRY_COMPARE(session->state(), ConnectionState::Connected);
        QSignalSpy events(session.get(), &Session::eventReceived);
        BanRequest ban;
        ban.user = "bob\nsmith";
        ban.action = "like";
        ban.actor = QStringLiteral("tester");
        ban.reason = QStringLiteral("spam");
        ban.durationMs = 60'000;
        // Retry until the subscription is in place (it follows the connection asynchronously).
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                auto banned = waitFor<BanInfo>(
                    [&](auto done) { session->moderation().ban(ban, nullptr, done); });
                return banned.ok();
            }() &&
                !events.isEmpty(),
            5000);
        QCOMPARE(events.first().at(0).toByteArray(), QByteArray("ban"));
        QCOMPARE(events.first().at(1).toByteArray(), QByteArray("bob\nsmith"));
        QCOMPARE(events.first().at(2).toByteArray(), QByteArray("like"));
    }

    void aclUserWithoutWritesIsTold()
    {
        RedisServer server;
        TOLLGATE_REQUIRE(server, start());
        QCOMPARE(server.command({"ACL", "SETUSER", "viewer", "on", ">pw", "~*", "&*", "+@read",
                                 "+@connection", "+acl|dryrun", "+config|get"}),
                 QByteArray("+OK\r\n"));
        Session::Settings settings;
        settings.connection = *ConnectionOptions::fromUrl(
            QStringLiteral("redis://viewer:pw@127.0.0.1:%1").arg(server.port()));
        Session session(settings);
        QSignalSpy checked(&session, &Session::permissionsChanged);
        session.open();
        QTRY_VERIFY(checked.size() >= 2); // "checking", then the server's answer
        for (Session::Write write : {Session::Write::Ban, Session::Write::EditPolicy,
                                     Session::Write::DeleteKey, Session::Write::RunScript}) {
            QVERIFY(!session.canWrite(write));
            QVERIFY(session.writeBlockedReason(write).contains(QStringLiteral("viewer")));
        }
    }

    void scriptRightsAloneDoNotEnableBans()
    {
        // EVALSHA is allowed but the writes inside the scripts are not: Redis would refuse
        // them only when the script runs, so the console must not offer a Ban button.
        RedisServer server;
        TOLLGATE_REQUIRE(server, start());
        QCOMPARE(server.command({"ACL", "SETUSER", "scripter", "on", ">pw", "~*", "&*", "+@read",
                                 "+@connection", "+evalsha", "+script|load", "+acl|dryrun"}),
                 QByteArray("+OK\r\n"));
        Session::Settings settings;
        settings.connection = *ConnectionOptions::fromUrl(
            QStringLiteral("redis://scripter:pw@127.0.0.1:%1").arg(server.port()));
        Session session(settings);
        QSignalSpy checked(&session, &Session::permissionsChanged);
        session.open();
        QTRY_VERIFY(checked.size() >= 2); // "checking", then the server's answer
        QVERIFY(session.canWrite(Session::Write::RunScript));
        for (Session::Write write : {Session::Write::Ban, Session::Write::Unban,
                                     Session::Write::Reset, Session::Write::EditPolicy})
            QVERIFY(!session.canWrite(write));
    }

    void readOnlyProfileBlocksEveryWrite()
    {
        RedisServer server;
        TOLLGATE_REQUIRE(server, start());
        Session::Settings settings;
        settings.connection = *ConnectionOptions::fromUrl(server.url());
        settings.readOnly = true;
        settings.profileName = QStringLiteral("prod (read)");
        Session session(settings);
        session.open();
        QTRY_COMPARE(session.state(), ConnectionState::Connected);
        QVERIFY(!session.canWrite(Session::Write::Unban));
        QVERIFY(session.writeBlockedReason(Session::Write::Unban)
                    .contains(QStringLiteral("read-only")));
    }
};

QTEST_MAIN(tst_Session)
#include "tst_Session.moc"
