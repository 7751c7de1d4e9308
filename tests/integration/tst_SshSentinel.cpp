// A Sentinel deployment behind an SSH server (tests/support/RedisSentinelGroup and SshServer):
// the sentinels and the primary they name are all reached through one SSH session, by
// tollgatectl and by the library, and after a failover the connection follows the sentinels to
// the new primary through the same tunnel.

#include "core/ssh/SshTunnel.h"
#include "tests/support/CliRunner.h"
#include "tests/support/RedisSentinelGroup.h"
#include "tests/support/SshServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Client.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CliRun;
using tollgate::test::SshClientConfig;
using tollgate::test::SshServer;

class SshSentinelTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cliThroughOneSession();
    void followsAFailoverThroughTheTunnel();

private:
    // sshd's forwarded connections to 127.0.0.1:port so far.
    int forwardsTo(quint16 port) const
    {
        const QByteArray target = "target 127.0.0.1 port " + QByteArray::number(port) + '\r';
        return int(m_sshd.log().count(target));
    }

    test::RedisSentinelGroup m_group;
    SshServer m_sshd;
    SshClientConfig m_client;
};

void SshSentinelTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_group, start());
    TOLLGATE_REQUIRE(m_sshd, start());
    m_client.addHost(QStringLiteral("bastion"), m_sshd);
    m_client.trust(m_sshd.knownHostsLine());
    QVERIFY(m_client.write());
}

void SshSentinelTest::cliThroughOneSession()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), m_group.url());
    const QStringList ssh{QStringLiteral("--ssh"), QStringLiteral("bastion"),
                          QStringLiteral("--ssh-config"), m_client.configFile()};
    const CliRun policy = test::runCli(test::tollgatectlPath(), env,
                                       ssh + QString::fromLatin1("policy set like --limit 5 "
                                                                 "--window 1m")
                                                 .split(QLatin1Char(' ')));
    QVERIFY2(policy.code == 0, qPrintable(policy.describe()));
    const int logins = int(m_sshd.log().count("Accepted publickey"));
    const CliRun hit = test::runCli(test::tollgatectlPath(), env,
                                    ssh + QString::fromLatin1("hit like alice").split(QLatin1Char(' ')));
    QVERIFY2(hit.code == 0, qPrintable(hit.describe()));
    QCOMPARE(int(m_sshd.log().count("Accepted publickey")) - logins, 1);
    // A sentinel and the primary it named, both through sshd.
    int sentinelForwards = 0;
    for (int i = 0; i < test::RedisSentinelGroup::kSentinels; ++i)
        sentinelForwards += forwardsTo(m_group.sentinel(i).port());
    QVERIFY(sentinelForwards >= 2);
    QVERIFY(forwardsTo(m_group.server(m_group.primaryIndex()).port()) >= 2);
}

void SshSentinelTest::followsAFailoverThroughTheTunnel()
{
    ConnectionOptions options = *ConnectionOptions::fromUrl(m_group.url());
    options.ssh.destination = QStringLiteral("bastion");
    options.ssh.configFile = m_client.configFile();
    options.reconnectMaxDelay = std::chrono::milliseconds(300);
    Client client(options);
    client.open();
    QVERIFY(client.executeSync({"SET", "ssh:sentinel", "1"}));
    const qint64 ssh = SshTunnel::shared(options.ssh)->processId();
    const int old = m_group.primaryIndex();
    QVERIFY(m_group.failover());
    QVERIFY2(m_group.waitForPrimaryOtherThan(old), qPrintable(m_group.errorString()));
    const quint16 newPrimary = m_group.server(m_group.primaryIndex()).port();
    // Commands reach the new primary, through a forward of the same SSH session.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const Result<Reply> done = client.executeSync({"INCR", "ssh:sentinel"});
            return done && forwardsTo(newPrimary) > 0;
        }(),
        20000);
    QCOMPARE(SshTunnel::shared(options.ssh)->processId(), ssh);
    QCOMPARE(m_group.server(m_group.primaryIndex()).command({"EXISTS", "ssh:sentinel"}),
             QByteArray(":1\r\n"));
}

QTEST_GUILESS_MAIN(SshSentinelTest)
#include "tst_SshSentinel.moc"
