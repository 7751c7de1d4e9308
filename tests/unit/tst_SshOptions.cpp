// The SSH destination as users write it, the ssh arguments it becomes, and OpenSSH's messages
// turned into typed errors (the real client's messages, as Debian's OpenSSH prints them).

#include "core/ssh/SshFailure.h"
#include "tollgate/ConnectionOptions.h"

#include <QtTest>

using namespace tollgate;

class SshOptionsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void destinations_data();
    void destinations();
    void trustIsAlwaysOnTheCommandLine();
    void failures_data();
    void failures();
    void forwardFailures();
};

void SshOptionsTest::destinations_data()
{
    QTest::addColumn<QString>("destination");
    QTest::addColumn<QStringList>("tail"); // serverArguments() after -F/-i, "" = invalid
    const QString strict = QStringLiteral("StrictHostKeyChecking=yes");
    auto args = [&](QStringList head, const QString& host) {
        return head << QStringLiteral("-o") << strict << QStringLiteral("--") << host;
    };
    QTest::newRow("alias") << QStringLiteral("bastion") << args({}, QStringLiteral("bastion"));
    QTest::newRow("user@host") << QStringLiteral("ops@10.0.0.1")
                               << args({QStringLiteral("-l"), QStringLiteral("ops")},
                                       QStringLiteral("10.0.0.1"));
    QTest::newRow("user@host:port")
        << QStringLiteral("ops@jump.example.com:2222")
        << args({QStringLiteral("-l"), QStringLiteral("ops"), QStringLiteral("-p"),
                 QStringLiteral("2222")},
                QStringLiteral("jump.example.com"));
    QTest::newRow("[v6]:port") << QStringLiteral("[::1]:22")
                               << args({QStringLiteral("-p"), QStringLiteral("22")},
                                       QStringLiteral("::1"));
    QTest::newRow("bare v6") << QStringLiteral("fe80::1") << args({}, QStringLiteral("fe80::1"));
    QTest::newRow("user with @") << QStringLiteral("a@b@host")
                                 << args({QStringLiteral("-l"), QStringLiteral("a@b")},
                                         QStringLiteral("host"));
    for (const char* bad : {"", "@host", "host:0", "host:65536", "host:x", "-oProxyCommand=sh",
                            "two words", "[::1", "[::1]x", "user@"})
        QTest::newRow(bad) << QString::fromLatin1(bad) << QStringList();
}

void SshOptionsTest::destinations()
{
    QFETCH(QString, destination);
    QFETCH(QStringList, tail);
    const Status valid = SshOptions::validateDestination(destination);
    QCOMPARE(bool(valid), !tail.isEmpty());
    if (!valid) {
        QCOMPARE(valid.error().kind, ErrorKind::InvalidInput);
        QVERIFY(valid.error().message.contains(QStringLiteral("[user@]host[:port]")));
        return;
    }
    SshOptions options;
    options.destination = destination;
    QCOMPARE(options.serverArguments(), tail);
}

void SshOptionsTest::trustIsAlwaysOnTheCommandLine()
{
    SshOptions options;
    options.destination = QStringLiteral("b");
    options.configFile = QStringLiteral("/c");
    options.identityFile = QStringLiteral("/k");
    options.acceptNewHostKey = true;
    QCOMPARE(options.serverArguments(),
             QString::fromLatin1("-F /c -i /k -o StrictHostKeyChecking=accept-new -- b")
                 .split(QLatin1Char(' ')));
    SshOptions same = options;
    QVERIFY(same == options);
    same.acceptNewHostKey = false;
    QVERIFY(same != options);
}

void SshOptionsTest::failures_data()
{
    QTest::addColumn<QByteArray>("log");
    QTest::addColumn<ErrorKind>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("unknown") << QByteArray("No ED25519 host key is known for [127.0.0.1]:4022 and "
                                           "you have requested strict checking.\r\nHost key "
                                           "verification failed.\r\n")
                             << ErrorKind::Auth << QStringLiteral("host key is unknown");
    QTest::newRow("changed")
        << QByteArray("@@@@@@@@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     "
                      "@\r\n@@@@@@@@@@@\r\nHost key for [127.0.0.1]:4022 has changed and you have "
                      "requested strict checking.\r\nHost key verification failed.\r\n")
        << ErrorKind::Auth << QStringLiteral("host key has CHANGED");
    QTest::newRow("denied") << QByteArray("root@127.0.0.1: Permission denied (publickey).\r\n")
                            << ErrorKind::Auth
                            << QStringLiteral("authentication failed: root@127.0.0.1: "
                                              "Permission denied (publickey).");
    QTest::newRow("refused") << QByteArray("ssh: connect to host 127.0.0.1 port 1: Connection "
                                           "refused\r\n")
                             << ErrorKind::Io
                             << QStringLiteral("ssh: connect to host 127.0.0.1 port 1: "
                                               "Connection refused");
    QTest::newRow("silent") << QByteArray() << ErrorKind::Io
                            << QStringLiteral("ssh exited without saying why");
}

void SshOptionsTest::failures()
{
    QFETCH(QByteArray, log);
    QFETCH(ErrorKind, kind);
    QFETCH(QString, says);
    const Error error = classifySshFailure(QStringLiteral("bastion"), log);
    QCOMPARE(error.kind, kind);
    QVERIFY2(error.message.startsWith(QStringLiteral("ssh bastion: ")), qPrintable(error.message));
    QVERIFY2(error.message.contains(says), qPrintable(error.message));
}

void SshOptionsTest::forwardFailures()
{
    QCOMPARE(forwardFailure("Warning: Permanently added '[127.0.0.1]:4022' (ED25519)\r\n"
                            "channel 3: open failed: connect failed: Connection refused\r\n"),
             QStringLiteral("connect failed: Connection refused"));
    // Only when it is the last thing ssh said: an old failure is not today's reason.
    QCOMPARE(forwardFailure("channel 3: open failed: connect failed: Connection refused\r\n"
                            "Warning: something else\r\n"),
             QString());
    QCOMPARE(forwardFailure(QByteArray()), QString());
}

QTEST_GUILESS_MAIN(SshOptionsTest)
#include "tst_SshOptions.moc"
