// The ACL roles of docs/operators.md "ACL roles", taken from that file itself: each user is
// created on a real server and drives the real tollgatectl. What a role may do succeeds (with its
// audit entries); what it may not do exits 3 with nothing written. Also the users of issue 6:
// one with `+@all -xadd`, one without access to tg:audit, and tg:audit holding a string.

#include "core/registry/ServiceRegistry.h"
#include "tests/support/CliRunner.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Blocking.h"

#include <QFile>
#include <QtTest>

using tollgate::test::RedisServer;

namespace {

using Run = tollgate::test::CliRun;

// Splits a redis-cli line into arguments: words, with '...' quoting.
QList<QByteArray> splitCliLine(const QByteArray& line)
{
    QList<QByteArray> words;
    QByteArray word;
    bool quoted = false, inWord = false;
    for (char c : line) {
        if (c == '\'') {
            quoted = !quoted;
            inWord = true;
        } else if (c == ' ' && !quoted) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words << word;
    return words;
}

} // namespace

class AclRolesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void readmeHasEveryRole();
    void viewer();
    void support();
    void operatorRole();
    void application();
    void tollgatedRole();
    void plainReadUserConnects();
    void refusedUsersWriteNothing_data();
    void refusedUsersWriteNothing();

private:
    // tollgatectl as `user` (password "<user>-password", as in docs/operators.md).
    Run ctl(const QByteArray& user, const QStringList& args);
    void expectRefused(const QByteArray& user, const QStringList& args);
    // Every key with its DUMP and whether it has a TTL.
    QMap<QByteArray, QByteArray> snapshot();
    qint64 integer(const QList<QByteArray>& command);
    // As the default user: a like policy (2 per minute, ban 1 h), a counter and a ban of 42.
    void seed();

    RedisServer m_redis;
    QString m_binary;
    QMap<QByteArray, QList<QByteArray>> m_roles; // role -> ACL SETUSER arguments
};

void AclRolesTest::initTestCase()
{
    m_binary = tollgate::test::tollgatectlPath();
    QVERIFY2(QFileInfo(m_binary).isExecutable(), qPrintable(m_binary));
    QFile readme(tollgate::test::sourcePath(QStringLiteral("docs/operators.md")));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    for (const QByteArray& line : readme.readAll().split('\n')) {
        if (!line.startsWith("ACL SETUSER "))
            continue;
        const QList<QByteArray> words = splitCliLine(line.trimmed());
        m_roles[words.value(2)] = words;
    }
    TOLLGATE_REQUIRE(m_redis, start());
}

void AclRolesTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    for (const QList<QByteArray>& setuser : std::as_const(m_roles)) {
        m_redis.command({"ACL", "DELUSER", setuser.value(2)});
        QCOMPARE(m_redis.command(setuser), QByteArray("+OK\r\n"));
    }
}

Run AclRolesTest::ctl(const QByteArray& user, const QStringList& args)
{
    const QString url = QStringLiteral("redis://%1:%1-password@127.0.0.1:%2")
                            .arg(QString::fromUtf8(user))
                            .arg(m_redis.port());
    return tollgate::test::runCli(
        m_binary, url, QStringList{QStringLiteral("--actor"), QString::fromUtf8(user)} + args);
}

void AclRolesTest::expectRefused(const QByteArray& user, const QStringList& args)
{
    const auto before = snapshot();
    const Run run = ctl(user, args);
    QVERIFY2(run.code == 3, qPrintable(args.join(u' ') + QStringLiteral(": ") + run.describe()));
    QVERIFY2(run.err.contains("noperm"), qPrintable(run.describe()));
    QCOMPARE(snapshot(), before);
}

QMap<QByteArray, QByteArray> AclRolesTest::snapshot()
{
    QMap<QByteArray, QByteArray> keys;
    const QList<QByteArray> replies = m_redis.pipeline({{"SCAN", "0", "COUNT", "10000"}});
    // *2 $1 0 *N $len key ...: the keys are every bulk string after the cursor.
    const QList<QByteArray> lines = replies.value(0).split('\n');
    for (int i = 4; i + 1 < lines.size(); i += 2) {
        const QByteArray key = lines[i + 1].chopped(1);
        keys[key] = m_redis.command({"DUMP", key}) +
                    (m_redis.command({"PTTL", key}).startsWith(":-") ? "" : "+ttl");
    }
    return keys;
}

qint64 AclRolesTest::integer(const QList<QByteArray>& command)
{
    const QByteArray raw = m_redis.command(command);
    return raw.startsWith(':') ? raw.mid(1).trimmed().toLongLong() : -99;
}

void AclRolesTest::seed()
{
    for (const QStringList& args :
         {QStringList{QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                      QStringLiteral("--limit"), QStringLiteral("2"), QStringLiteral("--window"),
                      QStringLiteral("1m"), QStringLiteral("--ban"), QStringLiteral("1h")},
          QStringList{QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42")},
          QStringList{QStringLiteral("ban"), QStringLiteral("42"), QStringLiteral("--action"),
                      QStringLiteral("like"), QStringLiteral("--for"), QStringLiteral("1h"),
                      QStringLiteral("--reason"), QStringLiteral("seed")}}) {
        const Run run = tollgate::test::runCli(
            m_binary, m_redis.url(),
            QStringList{QStringLiteral("--actor"), QStringLiteral("admin")} + args);
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
    }
    QCOMPARE(integer({"XLEN", "tg:audit"}), qint64(2));
}

void AclRolesTest::readmeHasEveryRole()
{
    QCOMPARE(m_roles.keys(), (QList<QByteArray>{"application", "operator", "support", "viewer"}));
}

void AclRolesTest::viewer()
{
    seed();
    // A plain +@read user without PING connects; reads and read-only scripts work.
    for (const QStringList& args :
         {QStringList{QStringLiteral("peek"), QStringLiteral("like"), QStringLiteral("43")},
          QStringList{QStringLiteral("policy"), QStringLiteral("list")},
          QStringList{QStringLiteral("policy"), QStringLiteral("get"), QStringLiteral("like")},
          QStringList{QStringLiteral("audit")}, QStringList{QStringLiteral("subjects")},
          QStringList{QStringLiteral("repair")}}) {
        const Run run = ctl("viewer", args);
        QVERIFY2(run.code == 0,
                 qPrintable(args.join(u' ') + QStringLiteral(": ") + run.describe()));
    }
    // After SCRIPT FLUSH the read-only call loads the script again and still works.
    QCOMPARE(m_redis.command({"SCRIPT", "FLUSH"}), QByteArray("+OK\r\n"));
    const Run peek =
        ctl("viewer", {QStringLiteral("peek"), QStringLiteral("like"), QStringLiteral("43")});
    QVERIFY2(peek.code == 0, qPrintable(peek.describe()));

    expectRefused("viewer", {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("42")});
    expectRefused("viewer",
                  {QStringLiteral("ban"), QStringLiteral("43"), QStringLiteral("--for"),
                   QStringLiteral("1h"), QStringLiteral("--reason"), QStringLiteral("x")});
    expectRefused("viewer", {QStringLiteral("unban"), QStringLiteral("42"),
                             QStringLiteral("--reason"), QStringLiteral("x")});
    expectRefused("viewer", {QStringLiteral("reset"), QStringLiteral("42"),
                             QStringLiteral("--reason"), QStringLiteral("x")});
    expectRefused("viewer",
                  {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                   QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"),
                   QStringLiteral("1m"), QStringLiteral("--revision"), QStringLiteral("1")});
}

void AclRolesTest::support()
{
    seed();
    const Run unban = ctl("support", {QStringLiteral("unban"), QStringLiteral("42"),
                                      QStringLiteral("--reason"), QStringLiteral("appeal")});
    QVERIFY2(unban.code == 0, qPrintable(unban.describe()));
    const Run reset = ctl("support", {QStringLiteral("reset"), QStringLiteral("42"),
                                      QStringLiteral("--reason"), QStringLiteral("appeal")});
    QVERIFY2(reset.code == 0, qPrintable(reset.describe()));
    QCOMPARE(integer({"EXISTS", "tg:{42}:like:ban", "tg:{42}:like:fw:60000"}), qint64(0));
    const Run ban =
        ctl("support", {QStringLiteral("ban"), QStringLiteral("43"), QStringLiteral("--for"),
                        QStringLiteral("1h"), QStringLiteral("--reason"), QStringLiteral("spam")});
    QVERIFY2(ban.code == 0, qPrintable(ban.describe()));
    QCOMPARE(integer({"XLEN", "tg:audit"}), qint64(5));
    QCOMPARE(integer({"XLEN", "tg:{43}:audit"}), qint64(1));
    // Support gives a customer more for a day and takes it back: audited, indexed, then gone.
    const Run more = ctl("support", {QStringLiteral("override"), QStringLiteral("set"),
                                     QStringLiteral("like"), QStringLiteral("42"),
                                     QStringLiteral("--limit"), QStringLiteral("4"),
                                     QStringLiteral("--window"), QStringLiteral("1m"),
                                     QStringLiteral("--for"), QStringLiteral("24h"),
                                     QStringLiteral("--reason"), QStringLiteral("trial")});
    QVERIFY2(more.code == 0, qPrintable(more.describe()));
    QCOMPARE(integer({"ZCARD", "tg:overrides"}), qint64(1));
    const Run back = ctl("support", {QStringLiteral("override"), QStringLiteral("delete"),
                                     QStringLiteral("like"), QStringLiteral("42"),
                                     QStringLiteral("--reason"), QStringLiteral("trial over")});
    QVERIFY2(back.code == 0, qPrintable(back.describe()));
    QCOMPARE(integer({"EXISTS", "tg:{42}:overrides"}), qint64(0));
    QCOMPARE(integer({"ZCARD", "tg:overrides"}), qint64(0));
    QCOMPARE(integer({"XLEN", "tg:audit"}), qint64(7));

    expectRefused("support", {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("44")});
    expectRefused("support", {QStringLiteral("penalize"), QStringLiteral("like"),
                              QStringLiteral("42"), QStringLiteral("--cost"), QStringLiteral("5"),
                              QStringLiteral("--reason"), QStringLiteral("x")});
    expectRefused("support",
                  {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                   QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"),
                   QStringLiteral("1m"), QStringLiteral("--revision"), QStringLiteral("1")});
    expectRefused("support",
                  {QStringLiteral("policy"), QStringLiteral("delete"), QStringLiteral("like"),
                   QStringLiteral("--revision"), QStringLiteral("1")});
    // The history is readable, a rollback is a policy change.
    QCOMPARE(ctl("support", {QStringLiteral("policy"), QStringLiteral("history"),
                             QStringLiteral("like")})
                 .code,
             0);
    QCOMPARE(ctl("operator", {QStringLiteral("policy"), QStringLiteral("set"),
                              QStringLiteral("like"), QStringLiteral("--limit"),
                              QStringLiteral("9"), QStringLiteral("--window"), QStringLiteral("1m")})
                 .code,
             0);
    expectRefused("support", {QStringLiteral("policy"), QStringLiteral("rollback"),
                              QStringLiteral("like"), QStringLiteral("--to"), QStringLiteral("1"),
                              QStringLiteral("--reason"), QStringLiteral("x")});
    // Deleting an audit stream by hand is not granted either.
    QVERIFY(m_redis.command({"ACL", "DRYRUN", "support", "DEL", "tg:{43}:audit"})
                .contains("no permissions"));
    QCOMPARE(m_redis.command({"ACL", "DRYRUN", "support", "DEL", "tg:{43}:ban"}),
             QByteArray("+OK\r\n"));
}

void AclRolesTest::operatorRole()
{
    seed();
    const Run set =
        ctl("operator", {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                         QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"),
                         QStringLiteral("1m"), QStringLiteral("--revision"), QStringLiteral("1")});
    QVERIFY2(set.code == 0, qPrintable(set.describe()));
    QCOMPARE(integer({"XLEN", "tg:audit"}), qint64(3));
    // A counter that lost its TTL: the operator repairs it.
    QCOMPARE(m_redis.command({"PERSIST", "tg:{42}:like:fw:60000"}), QByteArray(":1\r\n"));
    const Run repair = ctl("operator", {QStringLiteral("repair"), QStringLiteral("--fix")});
    QVERIFY2(repair.code == 0, qPrintable(repair.describe()));
    QVERIFY(integer({"PTTL", "tg:{42}:like:fw:60000"}) > 0);
    const Run ban = ctl("operator", {QStringLiteral("unban"), QStringLiteral("42"),
                                     QStringLiteral("--reason"), QStringLiteral("ok")});
    QVERIFY2(ban.code == 0, qPrintable(ban.describe()));
    expectRefused("operator",
                  {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("44")});
    const Run removed =
        ctl("operator", {QStringLiteral("policy"), QStringLiteral("delete"), QStringLiteral("like"),
                         QStringLiteral("--revision"), QStringLiteral("2")});
    QVERIFY2(removed.code == 0, qPrintable(removed.describe()));
    QCOMPARE(integer({"EXISTS", "tg:policy:like"}), qint64(0));
    // Its history stays: the operator brings it back, then rolls back to the first revision.
    const Run restored = ctl("operator", {QStringLiteral("policy"), QStringLiteral("restore"),
                                          QStringLiteral("like"), QStringLiteral("--reason"),
                                          QStringLiteral("deleted by mistake")});
    QVERIFY2(restored.code == 0, qPrintable(restored.describe()));
    const Run rolled = ctl("operator", {QStringLiteral("policy"), QStringLiteral("rollback"),
                                        QStringLiteral("like"), QStringLiteral("--to"),
                                        QStringLiteral("1"), QStringLiteral("--reason"),
                                        QStringLiteral("back to the first limits")});
    QVERIFY2(rolled.code == 0, qPrintable(rolled.describe()));
    QCOMPARE(m_redis.command({"HGET", "tg:policy:like", "revision"}), QByteArray("$1\r\n4\r\n"));
}

// The Services section's ACL user for tollgated: the application role plus the selector named
// there. It announces and withdraws; the application role alone may not withdraw (HDEL), and the
// viewer may read the registry but not announce.
void AclRolesTest::tollgatedRole()
{
    QFile readme(tollgate::test::sourcePath(QStringLiteral("docs/operators.md")));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QByteArray text = readme.readAll();
    const qsizetype at = text.indexOf("`'(+hdel +zrem ~tg:{:}:services");
    QVERIFY2(at >= 0, "no tollgated selector in docs/operators.md");
    const QByteArray selector = text.mid(at + 2, text.indexOf("'`", at) - at - 2);
    QList<QByteArray> setuser = m_roles.value("application");
    setuser[2] = "tollgated";
    setuser[4] = ">tollgated-password";
    m_redis.command({"ACL", "DELUSER", "tollgated"});
    QCOMPARE(m_redis.command(setuser << selector), QByteArray("+OK\r\n"));

    using namespace tollgate;
    const auto as = [this](const char* user) {
        auto client = std::make_unique<Client>(
            *ConnectionOptions::fromUrl(QStringLiteral("redis://%1:%1-password@127.0.0.1:%2")
                                            .arg(QLatin1String(user))
                                            .arg(m_redis.port())));
        client->open();
        return client;
    };
    ServiceInstance instance;
    instance.id = "web-1:1:00000001";
    instance.host = QStringLiteral("web-1");
    const auto announce = [&](Client* client) {
        return waitFor<qint64>([&](Callback<qint64> done) {
            ServiceRegistry(client, KeySchema()).announce(instance, nullptr, done);
        });
    };
    const auto withdraw = [&](Client* client) {
        return waitFor<Unit>([&](Callback<Unit> done) {
            ServiceRegistry(client, KeySchema()).withdraw(instance.id, nullptr, done);
        });
    };
    const auto list = [&](Client* client) {
        return waitFor<ServiceList>([&](Callback<ServiceList> done) {
            ServiceRegistry(client, KeySchema()).list(nullptr, done);
        });
    };
    const auto tollgated = as("tollgated");
    const auto announced = announce(tollgated.get());
    QVERIFY2(announced, qPrintable(announced ? QString() : announced.error().toString()));
    const auto viewer = as("viewer");
    const auto seen = list(viewer.get());
    QVERIFY2(seen && seen->instances.size() == 1,
             qPrintable(seen ? QString() : seen.error().toString()));
    const auto refused = announce(viewer.get());
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, ErrorKind::NoPerm);
    const auto application = as("application");
    const auto notAllowed = withdraw(application.get());
    QVERIFY(!notAllowed);
    QCOMPARE(notAllowed.error().kind, ErrorKind::NoPerm);
    QCOMPARE(integer({"HLEN", "tg:{:}:services"}), qint64(1)); // nothing written
    const auto withdrawn = withdraw(tollgated.get());
    QVERIFY2(withdrawn, qPrintable(withdrawn ? QString() : withdrawn.error().toString()));
    QCOMPARE(integer({"EXISTS", "tg:{:}:services"}), qint64(0));
}

void AclRolesTest::application()
{
    seed();
    QCOMPARE(
        ctl("application", {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("7")})
            .code,
        0);
    QCOMPARE(
        ctl("application", {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("7")})
            .code,
        0);
    // The third is denied and bans automatically: the ban with both audit entries.
    const Run denied =
        ctl("application", {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("7")});
    QVERIFY2(denied.code == 1, qPrintable(denied.describe()));
    QCOMPARE(integer({"EXISTS", "tg:{7}:like:ban"}), qint64(1));
    QCOMPARE(integer({"XLEN", "tg:{7}:audit"}), qint64(1));
    QCOMPARE(integer({"XLEN", "tg:audit"}), qint64(3));
    QCOMPARE(
        ctl("application", {QStringLiteral("peek"), QStringLiteral("like"), QStringLiteral("8")})
            .code,
        0);
    // Its refunds and penalties: counters, and a penalty's ban with both audit entries.
    const Run refund =
        ctl("application", {QStringLiteral("refund"), QStringLiteral("like"), QStringLiteral("8")});
    QVERIFY2(refund.code == 0, qPrintable(refund.describe()));
    const Run penalty =
        ctl("application", {QStringLiteral("penalize"), QStringLiteral("like"), QStringLiteral("9"),
                            QStringLiteral("--cost"), QStringLiteral("3"),
                            QStringLiteral("--reason"), QStringLiteral("abuse")});
    QVERIFY2(penalty.code == 0, qPrintable(penalty.describe()));
    QCOMPARE(integer({"EXISTS", "tg:{9}:like:ban"}), qint64(1));
    QCOMPARE(integer({"XLEN", "tg:audit"}), qint64(4));

    expectRefused("application",
                  {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
                   QStringLiteral("--limit"), QStringLiteral("500"), QStringLiteral("--window"),
                   QStringLiteral("1m"), QStringLiteral("--revision"), QStringLiteral("1")});
    expectRefused("application",
                  {QStringLiteral("policy"), QStringLiteral("delete"), QStringLiteral("like"),
                   QStringLiteral("--revision"), QStringLiteral("1")});
}

void AclRolesTest::plainReadUserConnects()
{
    // Nothing but +@read: no PING, no CLIENT SETNAME, no scripts. It connects and reads.
    seed();
    QCOMPARE(m_redis.command({"ACL", "SETUSER", "reader", "reset", "on", ">reader-password", "~*",
                              "-@all", "+@read"}),
             QByteArray("+OK\r\n"));
    for (const QStringList& args :
         {QStringList{QStringLiteral("policy"), QStringLiteral("list")},
          QStringList{QStringLiteral("policy"), QStringLiteral("get"), QStringLiteral("like")},
          QStringList{QStringLiteral("audit"), QStringLiteral("--user"), QStringLiteral("42")}}) {
        const Run run = ctl("reader", args);
        QVERIFY2(run.code == 0, qPrintable(args.join(u' ') + QStringLiteral(": ") + run.describe()));
    }
    expectRefused("reader", {QStringLiteral("ban"), QStringLiteral("43"), QStringLiteral("--for"),
                             QStringLiteral("1h"), QStringLiteral("--reason"), QStringLiteral("x")});
}

void AclRolesTest::refusedUsersWriteNothing_data()
{
    QTest::addColumn<QList<QByteArray>>("rules");
    QTest::addColumn<bool>("stringAtAudit");
    QTest::newRow("+@all -xadd") << QList<QByteArray>{"~*", "&*", "+@all", "-xadd"} << false;
    QTest::newRow("no access to tg:audit")
        << QList<QByteArray>{"~tg:{*", "~tg:policy:*", "&*", "+@all"} << false;
    QTest::newRow("tg:audit holds a string") << QList<QByteArray>{"~*", "&*", "+@all"} << true;
}

void AclRolesTest::refusedUsersWriteNothing()
{
    QFETCH(QList<QByteArray>, rules);
    QFETCH(bool, stringAtAudit);
    seed();
    QList<QByteArray> setuser{"ACL", "SETUSER", "limited", "reset", "on", ">limited-password"};
    QCOMPARE(m_redis.command(setuser + rules), QByteArray("+OK\r\n"));
    if (stringAtAudit) {
        m_redis.command({"DEL", "tg:audit"});
        QCOMPARE(m_redis.command({"SET", "tg:audit", "x"}), QByteArray("+OK\r\n"));
    }
    const QByteArray expected = stringAtAudit ? "tg:audit" : "noperm";
    const QList<QStringList> writes{
        {QStringLiteral("ban"), QStringLiteral("u9"), QStringLiteral("--for"), QStringLiteral("1h"),
         QStringLiteral("--reason"), QStringLiteral("x")},
        {QStringLiteral("unban"), QStringLiteral("42"), QStringLiteral("--reason"),
         QStringLiteral("x")},
        {QStringLiteral("reset"), QStringLiteral("42"), QStringLiteral("--reason"),
         QStringLiteral("x")},
        {QStringLiteral("policy"), QStringLiteral("set"), QStringLiteral("like"),
         QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--window"),
         QStringLiteral("1m"), QStringLiteral("--revision"), QStringLiteral("1")},
        {QStringLiteral("policy"), QStringLiteral("delete"), QStringLiteral("like"),
         QStringLiteral("--revision"), QStringLiteral("1")},
    };
    for (const QStringList& args : writes) {
        const auto before = snapshot();
        const Run run = ctl("limited", args);
        QVERIFY2(run.code == 3,
                 qPrintable(args.join(u' ') + QStringLiteral(": ") + run.describe()));
        QVERIFY2(run.err.contains(expected), qPrintable(run.describe()));
        QCOMPARE(snapshot(), before);
    }
    QCOMPARE(integer({"EXISTS", "tg:{u9}:ban"}), qint64(0));
}

QTEST_GUILESS_MAIN(AclRolesTest)
#include "tst_AclRoles.moc"
