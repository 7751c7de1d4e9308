// What the console may write, asked of the server with can.lua (a read-only script calling
// redis.acl_check_cmd), for ACL users who may not run ACL DRYRUN: the writes their ACL refuses
// are disabled with the reason, the others stay enabled; when even the check cannot run, the
// console says the rights are unknown and keeps every write disabled.
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class tst_Permissions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cannotDryRunButScriptsAnswer();
    void fullRightsWithoutDryRun_data();
    void fullRightsWithoutDryRun();
    void unknownKeepsWritesDisabled();

private:
    std::unique_ptr<Session> connectAs(const QByteArray& user);
    QList<bool> m_firstSeenWritable;
    void createUser(const QByteArray& user, const QList<QByteArray>& rules);

    RedisServer m_redis;
};

void tst_Permissions::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
}

void tst_Permissions::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

void tst_Permissions::createUser(const QByteArray& user, const QList<QByteArray>& rules)
{
    QList<QByteArray> command{"ACL", "SETUSER", user, "reset", "on", ">pw"};
    command << rules;
    QCOMPARE(m_redis.command(command), QByteArray("+OK\r\n"));
    // The premise of these tests: this user may not ask ACL DRYRUN.
    m_redis.setAuth("pw", user);
    const QByteArray dryRun = m_redis.command({"ACL", "DRYRUN", user, "GET", "k"});
    m_redis.setAuth({}, {});
    QVERIFY2(dryRun.startsWith("-NOPERM"), dryRun.constData());
}

std::unique_ptr<Session> tst_Permissions::connectAs(const QByteArray& user)
{
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(QStringLiteral("redis://%1:pw@127.0.0.1:%2")
                                                         .arg(QString::fromUtf8(user))
                                                         .arg(m_redis.port()))
                              .value();
    settings.actor = QStringLiteral("tester");
    auto session = std::make_unique<Session>(settings);
    // What the console would show at the first change: still guarded, the check not answered.
    m_firstSeenWritable.clear();
    QObject::connect(session.get(), &Session::stateChanged, session.get(),
                     [this, s = session.get()](ConnectionState state) {
                         if (state == ConnectionState::Connected && m_firstSeenWritable.isEmpty())
                             m_firstSeenWritable << s->canWrite(Session::Write::Ban);
                     });
    QSignalSpy checked(session.get(), &Session::permissionsChanged);
    session->open();
    // Two changes: "checking" when the connection is up, then the server's answer.
    [&] { QTRY_VERIFY_WITH_TIMEOUT(checked.size() >= 2, 10000); }();
    return session;
}

void tst_Permissions::cannotDryRunButScriptsAnswer()
{
    // Support staff: users' keys and the audit, but no DEL and no policies.
    createUser("support", {"~tg:{*", "~tg:audit", "&*", "+@read", "+@connection", "+@pubsub",
                           "+evalsha", "+evalsha_ro", "+script|load", "+hset", "+xadd", "+pexpire",
                           "+pexpireat", "+publish", "+config|get"});
    auto session = connectAs("support");
    QVERIFY(session->permissionsUnknownReason().isEmpty());
    QVERIFY(session->canWrite(Session::Write::Ban));
    QVERIFY(session->canWrite(Session::Write::RepairKey));
    for (Session::Write write : {Session::Write::Unban, Session::Write::Reset,
                                 Session::Write::DeleteKey, Session::Write::Override}) {
        QVERIFY(!session->canWrite(write));
        const QString reason = session->writeBlockedReason(write);
        QVERIFY2(reason.contains(QStringLiteral("support")) &&
                     reason.contains(QStringLiteral("DEL")),
                 qPrintable(reason));
    }
    QVERIFY(!session->canWrite(Session::Write::EditPolicy));
    QVERIFY2(session->writeBlockedReason(Session::Write::EditPolicy)
                 .contains(QStringLiteral("tg:policy:")),
             qPrintable(session->writeBlockedReason(Session::Write::EditPolicy)));

    // On screen: the Keys page offers no Delete, and says why.
    m_redis.command({"SET", "tg:{alice}:comment:fw:30000", "5", "PX", "30000"});
    KeysPage page(session.get());
    page.resize(1024, 700);
    page.show();
    QSignalSpy scanned(&page, &KeysPage::scanFinished);
    page.startScan();
    QTRY_COMPARE(scanned.size(), 1);
    auto* table = page.findChild<QTableView*>(QStringLiteral("keysTableView"));
    table->selectRow(0);
    auto* remove = page.findChild<QPushButton*>(QStringLiteral("deleteButton"));
    QVERIFY(!remove->isEnabled());
    QVERIFY2(remove->toolTip().contains(QStringLiteral("DEL")), qPrintable(remove->toolTip()));
}

void tst_Permissions::fullRightsWithoutDryRun_data()
{
    QTest::addColumn<QList<QByteArray>>("rules");
    QTest::newRow("everything but ACL") << QList<QByteArray>{"~*", "&*", "+@all", "-acl"};
    // An ACL written before EVALSHA_RO existed: the check falls back to EVALSHA.
    QTest::newRow("no EVALSHA_RO") << QList<QByteArray>{"~*", "&*", "+@all", "-acl", "-evalsha_ro"};
}

void tst_Permissions::fullRightsWithoutDryRun()
{
    QFETCH(QList<QByteArray>, rules);
    createUser("operator", rules);
    auto session = connectAs("operator");
    QVERIFY2(session->permissionsUnknownReason().isEmpty(),
             qPrintable(session->permissionsUnknownReason()));
    for (int w = 0; w < Session::kWriteCount; ++w)
        QVERIFY2(session->canWrite(Session::Write(w)),
                 qPrintable(session->writeBlockedReason(Session::Write(w))));
    // Even for a user who may do everything, nothing was offered before the server answered.
    QCOMPARE(m_firstSeenWritable, QList<bool>{false});
}

void tst_Permissions::unknownKeepsWritesDisabled()
{
    // May write everything, may run no script: the check itself cannot run.
    createUser("noscripts", {"~*", "&*", "+@all", "-acl", "-evalsha", "-evalsha_ro"});
    auto session = connectAs("noscripts");
    const QString unknown = session->permissionsUnknownReason();
    QVERIFY2(unknown.contains(QStringLiteral("Could not check")) &&
                 unknown.contains(QStringLiteral("noscripts")),
             qPrintable(unknown));
    for (int w = 0; w < Session::kWriteCount; ++w) {
        QVERIFY(!session->canWrite(Session::Write(w)));
        QCOMPARE(session->writeBlockedReason(Session::Write(w)), unknown);
    }
}

QTEST_MAIN(tst_Permissions)
#include "tst_Permissions.moc"
