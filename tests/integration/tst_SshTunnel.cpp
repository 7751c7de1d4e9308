// Redis through an SSH tunnel, against a real sshd of the test's own (tests/support/SshServer):
// tollgatectl and the library reach a standalone server, a TLS server and every node of a
// Redis Cluster through one SSH session; the session ends with the last client; an sshd killed
// while a command waits for its reply gives a clear error at once and nothing is written twice.

#include "core/client/ClientInternals.h"
#include "core/redis/Transport.h"
#include "core/ssh/SshTunnel.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/SshServer.h"
#include "tests/support/TestEnv.h"
#include "tests/support/TlsCertificates.h"
#include "tollgate/Client.h"

#include <QtTest>

#include <csignal>

using namespace tollgate;
using tollgate::test::CliRun;
using tollgate::test::SshClientConfig;
using tollgate::test::SshServer;

class SshTunnelTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cliThroughTunnel();
    void clientsShareOneSessionThatEndsWithThem();
    void tlsThroughTunnel();
    void clusterNodesThroughOneSession();
    void sshdKilledMidCommand();
    void tunnelComesBackWithTheConnection();

private:
    // tollgatectl --url url --ssh bastion --ssh-config <ours> args...
    CliRun ctl(const QString& url, const QStringList& args, const QString& destination = {});
    SshOptions sshOptions() const;
    // Starts an sshd of the test's own and makes the options that reach m_redis through it.
    bool reachThrough(SshServer& sshd, SshClientConfig& client, const QString& alias,
                      ConnectionOptions* options);
    // Forwards sshd opened to 127.0.0.1:port (its DEBUG1 log names each target).
    int forwardsTo(quint16 port) const;

    SshServer m_sshd;
    SshClientConfig m_client;
    test::RedisServer m_redis;
};

void SshTunnelTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_sshd, start());
    // DEBUG SLEEP holds the server in sshdKilledMidCommand.
    TOLLGATE_REQUIRE(m_redis, start({QStringLiteral("--enable-debug-command"), QStringLiteral("local")}));
    m_client.addHost(QStringLiteral("bastion"), m_sshd);
    m_client.trust(m_sshd.knownHostsLine());
    QVERIFY(m_client.write());
}

SshOptions SshTunnelTest::sshOptions() const
{
    SshOptions ssh;
    ssh.destination = QStringLiteral("bastion");
    ssh.configFile = m_client.configFile();
    return ssh;
}

bool SshTunnelTest::reachThrough(SshServer& sshd, SshClientConfig& client, const QString& alias,
                                 ConnectionOptions* options)
{
    if (!sshd.start())
        return false;
    client.addHost(alias, sshd);
    client.trust(sshd.knownHostsLine());
    *options = *ConnectionOptions::fromUrl(m_redis.url());
    options->ssh.destination = alias;
    options->ssh.configFile = client.configFile();
    return client.write();
}

CliRun SshTunnelTest::ctl(const QString& url, const QStringList& args, const QString& destination)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), url);
    env.remove(QStringLiteral("SSH_AUTH_SOCK"));
    const QStringList ssh{QStringLiteral("--ssh"),
                          destination.isEmpty() ? QStringLiteral("bastion") : destination,
                          QStringLiteral("--ssh-config"), m_client.configFile()};
    return test::runCli(test::tollgatectlPath(), env, ssh + args);
}

int SshTunnelTest::forwardsTo(quint16 port) const
{
    const QByteArray target = "target 127.0.0.1 port " + QByteArray::number(port) + '\r';
    return int(m_sshd.log().count(target)); // sshd ends its log lines with \r\n
}

void SshTunnelTest::cliThroughTunnel()
{
    const int before = forwardsTo(m_redis.port());
    CliRun set = ctl(m_redis.url(), {QStringLiteral("policy"), QStringLiteral("set"),
                                     QStringLiteral("like"), QStringLiteral("--limit"),
                                     QStringLiteral("5"), QStringLiteral("--window"),
                                     QStringLiteral("1m")});
    QVERIFY2(set.code == 0, qPrintable(set.describe()));
    for (int i = 1; i <= 2; ++i) {
        const CliRun hit = ctl(m_redis.url(), {QStringLiteral("--json"), QStringLiteral("hit"),
                                               QStringLiteral("like"), QStringLiteral("alice")});
        QVERIFY2(hit.code == 0, qPrintable(hit.describe()));
        QCOMPARE(hit.object().value(QStringLiteral("count")).toInt(), i);
    }
    // Each run went through sshd to the server (and the server holds what they wrote).
    QCOMPARE(forwardsTo(m_redis.port()) - before, 3);
    QVERIFY(!m_redis.command({"DBSIZE"}).startsWith(":0"));

    // The error names the path taken; "direct" would be a different message.
    const CliRun refused =
        ctl(QStringLiteral("redis://127.0.0.1:%1").arg(test::RedisServer::freePort()),
            {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("alice")});
    QCOMPARE(refused.code, 3);
    QVERIFY2(refused.err.contains("via ssh bastion") &&
                 refused.err.contains("(ssh: connect failed: Connection refused)"),
             qPrintable(refused.describe()));
}

void SshTunnelTest::clientsShareOneSessionThatEndsWithThem()
{
    // What a tollgatectl killed with SIGKILL left behind: removed by the next tunnel.
    QProcess gone;
    gone.start(QStringLiteral("true"));
    QVERIFY(gone.waitForStarted());
    const qint64 deadPid = gone.processId();
    QVERIFY(gone.waitForFinished());
    const QString orphan =
        QDir::temp().filePath(QStringLiteral("tollgate-ssh-%1-AbCdEf").arg(deadPid));
    QVERIFY(QDir().mkpath(orphan));
    QFile(orphan + QStringLiteral("/r1.sock")).open(QIODevice::WriteOnly);

    ConnectionOptions options = *ConnectionOptions::fromUrl(m_redis.url());
    options.ssh = sshOptions();
    qint64 pid = 0;
    QString control;
    {
        Client first(options);
        Client second(options);
        first.open();
        second.open();
        const Result<Reply> a = first.executeSync({"INCR", "ssh:shared"});
        const Result<Reply> b = second.executeSync({"INCR", "ssh:shared"});
        if (!a || !b)
            QFAIL(qPrintable((a ? b : a).error().toString()));
        QCOMPARE(ClientInternals::socketKind(first), SocketKind::QtLocal);
        QVERIFY(!QFileInfo::exists(orphan));
        pid = SshTunnel::shared(options.ssh)->processId();
        QVERIFY(pid > 0);
        // One ssh client; its control socket in a directory only we may enter.
        const QList<QByteArray> args =
            [&] {
                QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
                cmdline.open(QIODevice::ReadOnly);
                return cmdline.readAll().split('\0');
            }();
        control = QString::fromLocal8Bit(args.value(args.indexOf("-S") + 1));
        QVERIFY2(QFileInfo::exists(control), qPrintable(control));
        QCOMPARE(QFileInfo(QFileInfo(control).path()).permissions() &
                     (QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther),
                 QFileDevice::Permissions());
    }
    // Both clients closed: the ssh client is gone and its directory removed.
    QTRY_VERIFY(::kill(pid_t(pid), 0) != 0);
    QVERIFY(!QFileInfo::exists(QFileInfo(control).path()));
    QCOMPARE(m_redis.command({"GET", "ssh:shared"}), QByteArray("$1\r\n2\r\n"));
}

void SshTunnelTest::tlsThroughTunnel()
{
    test::TlsCertificates certs;
    TOLLGATE_REQUIRE(certs, generate());
    test::RedisServer tls;
    TOLLGATE_REQUIRE(tls, startTls(certs.files()));
    const QString url = tls.url() + QStringLiteral("?ca=") + certs.files().caCert;
    const CliRun policy = ctl(url, {QStringLiteral("policy"), QStringLiteral("set"),
                                    QStringLiteral("like"), QStringLiteral("--limit"),
                                    QStringLiteral("5"), QStringLiteral("--window"),
                                    QStringLiteral("1m")});
    QVERIFY2(policy.code == 0, qPrintable(policy.describe()));
    const CliRun hit = ctl(url, {QStringLiteral("--json"), QStringLiteral("hit"),
                                 QStringLiteral("like"), QStringLiteral("bob")});
    QVERIFY2(hit.code == 0, qPrintable(hit.describe()));
    QCOMPARE(forwardsTo(tls.port()), 2);

    ConnectionOptions options = *ConnectionOptions::fromUrl(url);
    options.ssh = sshOptions();
    Client client(options);
    client.open();
    const Result<Reply> pong = client.executeSync({"PING"});
    if (!pong)
        QFAIL(qPrintable(pong.error().toString()));
    QCOMPARE(ClientInternals::socketKind(client), SocketKind::QtTls);

    // The certificate is still checked inside the tunnel: another CA is refused.
    const CliRun wrongCa = ctl(tls.url() + QStringLiteral("?ca=") + certs.files().otherCaCert,
                               {QStringLiteral("hit"), QStringLiteral("like"), QStringLiteral("bob")});
    QCOMPARE(wrongCa.code, 3);
}

void SshTunnelTest::clusterNodesThroughOneSession()
{
    test::RedisCluster cluster;
    TOLLGATE_REQUIRE(cluster, start(3, 0));
    const int loginsBefore = int(m_sshd.log().count("Accepted publickey"));
    // Users on every primary, all hit in one run: one SSH session serves every node.
    const CliRun bench = ctl(cluster.seedUrl(),
                             {QStringLiteral("bench"), QStringLiteral("hit"),
                              QStringLiteral("--seconds"), QStringLiteral("1"),
                              QStringLiteral("--users"), QStringLiteral("300")});
    QVERIFY2(bench.code == 0, qPrintable(bench.describe()));
    QCOMPARE(int(m_sshd.log().count("Accepted publickey")) - loginsBefore, 1);
    for (int i = 0; i < cluster.size(); ++i) {
        QVERIFY2(forwardsTo(cluster.node(i).port()) >= 1,
                 qPrintable(QStringLiteral("node %1 not reached through sshd").arg(i)));
        QVERIFY(!cluster.node(i).command({"DBSIZE"}).startsWith(":0"));
    }
}

void SshTunnelTest::sshdKilledMidCommand()
{
    SshServer sshd;
    SshClientConfig client;
    ConnectionOptions options;
    QVERIFY2(reachThrough(sshd, client, QStringLiteral("doomed"), &options),
             qPrintable(sshd.errorString()));
    options.autoReconnect = false;
    Client tunnelled(options);
    tunnelled.open();
    QVERIFY(tunnelled.executeSync({"SET", "ssh:once", "0"}));

    // The server holds the next command (DEBUG SLEEP on a connection of its own) while sshd,
    // with the session carrying it, is killed.
    QProcess sleeper;
    sleeper.start(test::RedisCluster::redisCliPath(),
                  {QStringLiteral("-p"), QString::number(m_redis.port()), QStringLiteral("DEBUG"),
                   QStringLiteral("SLEEP"), QStringLiteral("2")});
    QVERIFY(sleeper.waitForStarted());
    QTRY_VERIFY(m_redis.command({"PING"}, 50).isEmpty()); // asleep: PING goes unanswered
    std::optional<Result<Reply>> answer;
    QObject context;
    tunnelled.execute({"INCR", "ssh:once"}, &context,
                      [&answer](Result<Reply> reply) { answer.emplace(std::move(reply)); });
    QTest::qWait(100);
    sshd.stop(true);
    // Told at once (long before the server wakes up), and clearly.
    QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 1000);
    QVERIFY(!*answer);
    QVERIFY2(answer->error().message.contains(QStringLiteral("via ssh doomed")),
             qPrintable(answer->error().toString()));
    QTRY_VERIFY_WITH_TIMEOUT(sleeper.state() == QProcess::NotRunning, 5000); // awake again
    // The command that was on its way ran at most once; nothing sent it again.
    const QByteArray value = m_redis.command({"GET", "ssh:once"});
    QVERIFY2(value == "$1\r\n0\r\n" || value == "$1\r\n1\r\n", value.constData());

    // The CLI: exit 3 with the reason, promptly, no hang.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), m_redis.url());
    const CliRun after = test::runCli(test::tollgatectlPath(), env,
                                      {QStringLiteral("--ssh"), QStringLiteral("doomed"),
                                       QStringLiteral("--ssh-config"), client.configFile(),
                                       QStringLiteral("hit"), QStringLiteral("like"),
                                       QStringLiteral("carol")});
    QCOMPARE(after.code, 3);
    QVERIFY2(after.err.contains("ssh doomed") && after.err.contains("Connection refused"),
             qPrintable(after.describe()));
}

void SshTunnelTest::tunnelComesBackWithTheConnection()
{
    SshServer sshd;
    SshClientConfig client;
    ConnectionOptions options;
    QVERIFY2(reachThrough(sshd, client, QStringLiteral("flaky"), &options),
             qPrintable(sshd.errorString()));
    options.reconnectMaxDelay = std::chrono::milliseconds(300);
    Client console(options); // reconnects, as the console's client does
    console.open();
    QVERIFY(console.executeSync({"SET", "ssh:back", "1"}));
    const qint64 firstSsh = SshTunnel::shared(options.ssh)->processId();

    sshd.stop(true);
    QTRY_VERIFY(console.state() != ConnectionState::Connected);
    TOLLGATE_REQUIRE(sshd, restart());
    // A new ssh session under the same connection, and commands go through again.
    QTRY_VERIFY_WITH_TIMEOUT(console.state() == ConnectionState::Connected, 15000);
    const Result<Reply> value = console.executeSync({"INCR", "ssh:back"});
    if (!value)
        QFAIL(qPrintable(value.error().toString()));
    QCOMPARE(value->integer, 2);
    const qint64 secondSsh = SshTunnel::shared(options.ssh)->processId();
    QVERIFY(secondSsh > 0 && secondSsh != firstSsh);
}

QTEST_GUILESS_MAIN(SshTunnelTest)
#include "tst_SshTunnel.moc"
