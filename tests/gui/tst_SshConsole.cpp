// The console through an SSH tunnel: the profile keeps its SSH settings (never a secret), the
// dialog checks them as they are typed, and a window connected through a private sshd works
// and names the path in its status bar; closing it ends the ssh client.

#include "core/ssh/SshTunnel.h"
#include "tests/support/RedisServer.h"
#include "tests/support/SshServer.h"
#include "tests/support/TestEnv.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"
#include "ui/connection/SshAskPass.h"
#include "ui/shell/MainWindow.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

#include <csignal>

using namespace tollgate;
using namespace tollgate::ui;

class SshConsoleTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void profileKeepsSshSettings();
    void dialogChecksSsh();
    void windowThroughTunnel();
    void askPassDialog();

private:
    std::unique_ptr<ProfileStore> makeStore(const QString& file = QStringLiteral("tollgate.ini"))
    {
        return std::make_unique<ProfileStore>(
            std::make_unique<QSettings>(m_dir.filePath(file), QSettings::IniFormat));
    }

    QTemporaryDir m_dir;
    test::SshServer m_sshd;
    test::SshClientConfig m_client;
    test::RedisServer m_redis;
};

void SshConsoleTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_sshd, start());
    TOLLGATE_REQUIRE(m_redis, start());
    m_client.addHost(QStringLiteral("console-bastion"), m_sshd);
    m_client.trust(m_sshd.knownHostsLine());
    QVERIFY(m_client.write());
}

void SshConsoleTest::profileKeepsSshSettings()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("behind bastion");
    profile.connection.host = QStringLiteral("10.0.3.7");
    profile.connection.ssh.destination = QStringLiteral("ops@bastion:2222");
    profile.connection.ssh.identityFile = QStringLiteral("/home/ops/.ssh/id_ed25519");
    profile.connection.ssh.configFile = QStringLiteral("/home/ops/ssh_config");
    profile.connection.ssh.acceptNewHostKey = true;
    makeStore()->save(profile);
    const std::optional<ConnectionProfile> loaded = makeStore()->load(profile.name);
    QVERIFY(loaded);
    QVERIFY(loaded->connection.ssh == profile.connection.ssh);
    // The console is the askpass program of its own tunnels.
    QCOMPARE(loaded->toSessionSettings({}).connection.ssh.askPassProgram,
             QCoreApplication::applicationFilePath());
}

void SshConsoleTest::dialogChecksSsh()
{
    auto store = makeStore(QStringLiteral("dialog.ini"));
    ConnectionDialog dialog(store.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.findChild<QLineEdit*>(QStringLiteral("nameLineEdit"))->setText(QStringLiteral("t"));
    dialog.findChild<QLineEdit*>(QStringLiteral("hostLineEdit"))->setText(QStringLiteral("10.0.0.1"));
    auto* box = dialog.findChild<QGroupBox*>(QStringLiteral("sshGroupBox"));
    auto* destination = dialog.findChild<QLineEdit*>(QStringLiteral("sshDestinationLineEdit"));
    auto* connectButton = dialog.findChild<QPushButton*>(QStringLiteral("connectButton"));
    QVERIFY(box && destination && connectButton);
    QVERIFY2(connectButton->isEnabled(), qPrintable(dialog.errorText()));

    box->setChecked(true);
    QVERIFY2(dialog.errorText().contains(QStringLiteral("SSH server: required")),
             qPrintable(dialog.errorText()));
    QVERIFY(!connectButton->isEnabled());
    destination->setText(QStringLiteral("ops@bastion:99999"));
    QVERIFY2(dialog.errorText().contains(QStringLiteral("port must be 1..65535")),
             qPrintable(dialog.errorText()));
    destination->setText(QStringLiteral("ops@bastion"));
    QVERIFY(dialog.errorText().isEmpty());
    dialog.findChild<QComboBox*>(QStringLiteral("transportComboBox"))->setCurrentIndex(1);
    dialog.findChild<QLineEdit*>(QStringLiteral("socketLineEdit"))->setText(QStringLiteral("/tmp/r.sock"));
    QVERIFY2(dialog.errorText().contains(QStringLiteral("not a unix socket")),
             qPrintable(dialog.errorText()));
    dialog.findChild<QComboBox*>(QStringLiteral("transportComboBox"))->setCurrentIndex(0);
    dialog.findChild<QCheckBox*>(QStringLiteral("sshAcceptNewHostKeyCheckBox"))->setChecked(true);
    QVERIFY(connectButton->isEnabled());
    const SshOptions ssh = dialog.sessionSettings().connection.ssh;
    QCOMPARE(ssh.destination, QStringLiteral("ops@bastion"));
    QVERIFY(ssh.acceptNewHostKey);

    // Unticked, the connection is direct again, whatever the fields still hold.
    box->setChecked(false);
    QVERIFY(!dialog.sessionSettings().connection.ssh.enabled());
}

void SshConsoleTest::windowThroughTunnel()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("tunnel");
    profile.connection = *ConnectionOptions::fromUrl(m_redis.url());
    profile.connection.ssh.destination = QStringLiteral("console-bastion");
    profile.connection.ssh.configFile = m_client.configFile();
    Session::Settings settings = profile.toSessionSettings({});
    settings.actor = QStringLiteral("tester");
    const SshOptions ssh = settings.connection.ssh;

    auto store = makeStore(QStringLiteral("window.ini"));
    qint64 pid = 0;
    {
        MainWindow window(store.get());
        window.setSession(std::make_unique<Session>(settings));
        window.show();
        auto* label = window.findChild<QLabel*>(QStringLiteral("serverLabel"));
        // INFO answered through the tunnel: the version, and the path it took.
        QTRY_VERIFY_WITH_TIMEOUT(label->text().startsWith(QStringLiteral("Redis ")) &&
                                     !label->text().startsWith(QStringLiteral("Redis at")),
                                 15000);
        QVERIFY2(label->text().endsWith(QStringLiteral("via ssh console-bastion")),
                 qPrintable(label->text()));
        pid = SshTunnel::shared(ssh)->processId();
        QVERIFY(pid > 0);
    }
    // The window and its session are gone: so is the ssh client.
    QTRY_VERIFY_WITH_TIMEOUT(::kill(pid_t(pid), 0) != 0, 10000);
}

void SshConsoleTest::askPassDialog()
{
    // Answers the dialog once it is up (it is modal): the seam the askpass program uses.
    auto answer = [](const QString& text, bool accept, QLineEdit::EchoMode* echo) {
        QTimer::singleShot(0, [=] {
            for (QWidget* widget : QApplication::topLevelWidgets()) {
                auto* dialog = qobject_cast<QInputDialog*>(widget);
                if (!dialog || dialog->objectName() != QStringLiteral("sshAskPassDialog"))
                    continue;
                *echo = dialog->textEchoMode();
                dialog->setTextValue(text);
                accept ? dialog->accept() : dialog->reject();
            }
        });
    };
    QLineEdit::EchoMode echo = QLineEdit::Normal;
    answer(QStringLiteral("open sesame"), true, &echo);
    QCOMPARE(askSshSecret(QStringLiteral("Enter passphrase for key '/k':")),
             std::optional<QString>(QStringLiteral("open sesame")));
    QCOMPARE(echo, QLineEdit::Password); // a secret is not shown
    answer(QStringLiteral("yes"), true, &echo);
    QCOMPARE(askSshSecret(QStringLiteral("Are you sure you want to continue connecting "
                                         "(yes/no/[fingerprint])?")),
             std::optional<QString>(QStringLiteral("yes")));
    QCOMPARE(echo, QLineEdit::Normal);
    answer(QString(), false, &echo);
    QCOMPARE(askSshSecret(QStringLiteral("ops@bastion's password:")), std::nullopt);
}

QTEST_MAIN(SshConsoleTest)
#include "tst_SshConsole.moc"
