// Whom an SSH tunnel trusts, against real sshd servers of the test's own: a host key not in
// known_hosts is refused unless the user accepts it explicitly, a changed one always; a key
// the server does not accept is refused; both are exit 3 with a message that says which. A
// ProxyJump of the ssh config takes the tunnel through a second sshd. Bad --ssh* flags: exit 2.

#include "tests/support/CliRunner.h"
#include "tests/support/RedisServer.h"
#include "tests/support/SshServer.h"
#include "tests/support/TestEnv.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::CliRun;
using tollgate::test::SshClientConfig;
using tollgate::test::SshServer;

class SshTrustTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void unknownHostKeyRefusedUnlessAccepted();
    void changedHostKeyAlwaysRefused();
    void wrongUserKeyRefused();
    void proxyJumpThroughSecondServer();
    void keyWithPassphrase();
    void badFlags_data();
    void badFlags();

private:
    CliRun hit(const SshClientConfig& config, const QString& destination,
               const QStringList& extra = {}, const QString& askPass = {});
    QString forgedKeyLine() const;

    SshServer m_sshd;
    test::RedisServer m_redis;
    QTemporaryDir m_keys;
};

void SshTrustTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_sshd, start());
    TOLLGATE_REQUIRE(m_redis, start());
    const CliRun policy = test::runCli(test::tollgatectlPath(), m_redis.url(),
                                       {QStringLiteral("policy"), QStringLiteral("set"),
                                        QStringLiteral("like"), QStringLiteral("--limit"),
                                        QStringLiteral("100"), QStringLiteral("--window"),
                                        QStringLiteral("1m")});
    QVERIFY2(policy.code == 0, qPrintable(policy.describe()));
    QString error;
    QVERIFY2(SshServer::generateKey(m_keys.filePath(QStringLiteral("other")), &error),
             qPrintable(error));
}

CliRun SshTrustTest::hit(const SshClientConfig& config, const QString& destination,
                         const QStringList& extra, const QString& askPass)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!askPass.isEmpty()) { // ssh asks this program instead of a terminal
        env.insert(QStringLiteral("SSH_ASKPASS"), askPass);
        env.insert(QStringLiteral("SSH_ASKPASS_REQUIRE"), QStringLiteral("force"));
    }
    env.insert(QStringLiteral("TOLLGATE_URL"), m_redis.url());
    env.remove(QStringLiteral("SSH_AUTH_SOCK"));
    return test::runCli(test::tollgatectlPath(), env,
                        QStringList{QStringLiteral("--ssh"), destination,
                                    QStringLiteral("--ssh-config"), config.configFile()} +
                            extra +
                            QStringList{QStringLiteral("hit"), QStringLiteral("like"),
                                        QStringLiteral("dave")});
}

// A known_hosts line for this server's address with a key that is not its own.
QString SshTrustTest::forgedKeyLine() const
{
    QFile other(m_keys.filePath(QStringLiteral("other.pub")));
    other.open(QIODevice::ReadOnly);
    const QList<QByteArray> parts = other.readAll().split(' ');
    return QStringLiteral("[127.0.0.1]:%1 %2 %3")
        .arg(m_sshd.port())
        .arg(QString::fromLatin1(parts.value(0)), QString::fromLatin1(parts.value(1)));
}

void SshTrustTest::unknownHostKeyRefusedUnlessAccepted()
{
    SshClientConfig config;
    config.addHost(QStringLiteral("fresh"), m_sshd);
    QVERIFY(config.write()); // an empty known_hosts
    const CliRun refused = hit(config, QStringLiteral("fresh"));
    QCOMPARE(refused.code, 3);
    QVERIFY2(refused.err.contains("host key is unknown") &&
                 refused.err.contains("--ssh-accept-new-host-key"),
             qPrintable(refused.describe()));
    QVERIFY(refused.out.isEmpty());

    const CliRun accepted = hit(config, QStringLiteral("fresh"),
                                {QStringLiteral("--ssh-accept-new-host-key")});
    QVERIFY2(accepted.code == 0, qPrintable(accepted.describe()));
    QFile known(config.knownHostsFile());
    QVERIFY(known.open(QIODevice::ReadOnly));
    const QByteArray recorded = known.readAll();
    QVERIFY2(recorded.contains(m_sshd.knownHostsLine().section(QLatin1Char(' '), 2, 2).toLatin1()),
             recorded.constData());
    // From now on it is known: no flag needed.
    const CliRun again = hit(config, QStringLiteral("fresh"));
    QVERIFY2(again.code == 0, qPrintable(again.describe()));
}

void SshTrustTest::changedHostKeyAlwaysRefused()
{
    SshClientConfig config;
    config.addHost(QStringLiteral("impostor"), m_sshd);
    config.trust(forgedKeyLine());
    QVERIFY(config.write());
    const QByteArray keysBefore = m_redis.command({"DBSIZE"});
    for (const QStringList& extra : {QStringList{}, QStringList{QStringLiteral("--ssh-accept-new-host-key")}}) {
        const CliRun refused = hit(config, QStringLiteral("impostor"), extra);
        QCOMPARE(refused.code, 3);
        QVERIFY2(refused.err.contains("host key has CHANGED"), qPrintable(refused.describe()));
    }
    QCOMPARE(m_redis.command({"DBSIZE"}), keysBefore); // nothing reached Redis
}

void SshTrustTest::wrongUserKeyRefused()
{
    SshClientConfig config;
    config.addHost(QStringLiteral("stranger"), m_sshd, {},
                   m_keys.filePath(QStringLiteral("other")));
    config.trust(m_sshd.knownHostsLine());
    QVERIFY(config.write());
    const CliRun refused = hit(config, QStringLiteral("stranger"));
    QCOMPARE(refused.code, 3);
    QVERIFY2(refused.err.contains("authentication failed") &&
                 refused.err.contains("Permission denied"),
             qPrintable(refused.describe()));

    // user@host:port on the command line, the right key given with --ssh-identity.
    const QString destination =
        QStringLiteral("%1@127.0.0.1:%2").arg(SshServer::userName()).arg(m_sshd.port());
    const CliRun direct = hit(config, destination, {QStringLiteral("--ssh-identity"), m_sshd.userKey()});
    QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
}

void SshTrustTest::proxyJumpThroughSecondServer()
{
    SshServer jump;
    TOLLGATE_REQUIRE(jump, start());
    SshClientConfig config;
    config.addHost(QStringLiteral("jump"), jump);
    config.addHost(QStringLiteral("inner"), m_sshd, {QStringLiteral("ProxyJump jump")});
    config.trust(jump.knownHostsLine());
    config.trust(m_sshd.knownHostsLine());
    QVERIFY(config.write());
    const CliRun through = hit(config, QStringLiteral("inner"));
    QVERIFY2(through.code == 0, qPrintable(through.describe()));
    // The jump host carried the connection to the inner sshd, which carried it to Redis.
    const QByteArray target = "target 127.0.0.1 port " + QByteArray::number(m_sshd.port()) + '\r';
    QVERIFY2(jump.log().contains("Accepted publickey") && jump.log().contains(target),
             jump.log().right(3000).constData());
}

void SshTrustTest::keyWithPassphrase()
{
    const QString key = m_keys.filePath(QStringLiteral("locked"));
    QString error;
    QVERIFY2(SshServer::generateKey(key, &error, QStringLiteral("open sesame")), qPrintable(error));
    QVERIFY(m_sshd.authorize(key + QStringLiteral(".pub")));
    SshClientConfig config;
    config.addHost(QStringLiteral("locked"), m_sshd, {}, key);
    config.trust(m_sshd.knownHostsLine());
    QVERIFY(config.write());
    auto script = [this](const QString& name, const QByteArray& body) {
        const QString path = m_keys.filePath(name);
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write("#!/bin/sh\n" + body + '\n');
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        return path;
    };
    // The prompt cancelled: the key cannot be used, the login is refused.
    const CliRun cancelled = hit(config, QStringLiteral("locked"), {},
                                 script(QStringLiteral("cancel.sh"), "exit 1"));
    QCOMPARE(cancelled.code, 3);
    QVERIFY2(cancelled.err.contains("authentication failed"), qPrintable(cancelled.describe()));
    // The passphrase given when asked: through.
    const CliRun answered = hit(config, QStringLiteral("locked"), {},
                                script(QStringLiteral("answer.sh"), "echo 'open sesame'"));
    QVERIFY2(answered.code == 0, qPrintable(answered.describe()));
}

void SshTrustTest::badFlags_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("message");
    const QString url = QStringLiteral("--url");
    QTest::newRow("unix socket") << QStringList{url, QStringLiteral("unix:///tmp/r.sock"),
                                                QStringLiteral("--ssh"), QStringLiteral("b")}
                                 << QByteArray("not a unix socket");
    QTest::newRow("bad port") << QStringList{QStringLiteral("--ssh"), QStringLiteral("b:70000")}
                              << QByteArray("port must be 1..65535");
    QTest::newRow("option-like") << QStringList{QStringLiteral("--ssh=-oProxyCommand=x")}
                                 << QByteArray("starts with '-'");
    QTest::newRow("no --ssh") << QStringList{QStringLiteral("--ssh-accept-new-host-key")}
                              << QByteArray("go with --ssh");
    QTest::newRow("no value") << QStringList{QStringLiteral("hit"), QStringLiteral("a"),
                                             QStringLiteral("b"), QStringLiteral("--ssh")}
                              << QByteArray("--ssh needs a value");
}

void SshTrustTest::badFlags()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, message);
    if (!args.contains(QStringLiteral("hit")))
        args << QStringLiteral("hit") << QStringLiteral("like") << QStringLiteral("eve");
    const CliRun run = test::runCli(test::tollgatectlPath(), m_redis.url(), args);
    QCOMPARE(run.code, 2);
    QVERIFY2(run.err.contains(message), qPrintable(run.describe()));
}

QTEST_GUILESS_MAIN(SshTrustTest)
#include "tst_SshTrust.moc"
