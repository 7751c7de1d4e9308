// Connection profiles, the connection dialog's validation and the demo's private server.

#include "app/demo/DemoServer.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"

#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

const QString kSecret = QStringLiteral("s3cret-Pa55word-xyz");

QByteArray fileText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class ConnectionTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void profileRoundTripWithoutPassword();
    void dialogSavesNoPasswordToSettings();
    void dialogValidation_data();
    void dialogValidation();
    void demoServerStartsAndStops();

private:
    std::unique_ptr<ProfileStore> makeStore() const
    {
        return std::make_unique<ProfileStore>(
            std::make_unique<QSettings>(settingsPath(), QSettings::IniFormat));
    }
    QString settingsPath() const { return m_dir->filePath(QStringLiteral("tollgate.ini")); }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void ConnectionTest::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void ConnectionTest::profileRoundTripWithoutPassword()
{
    ConnectionProfile profile;
    profile.name = QStringLiteral("prod / eu-west"); // a '/' must not split the group
    profile.connection.host = QStringLiteral("redis.example.net");
    profile.connection.port = 6380;
    profile.connection.user = QStringLiteral("operator");
    profile.connection.password = kSecret; // must not be stored
    profile.connection.database = 3;
    profile.connection.tls.enabled = true;
    profile.connection.tls.serverName = QStringLiteral("redis.internal");
    profile.connection.tls.verifyPeer = false;
    profile.prefix = "rl";
    profile.readOnly = true;
    profile.actor = QStringLiteral("alice");

    {
        auto store = makeStore();
        store->save(profile);
        bool answered = false;
        store->writePassword(profile.name, kSecret, this,
                             [&](const ProfileStore::PasswordResult&) { answered = true; });
        // With a keychain service the password goes there; without one the job fails.
        // Either way it must never reach the settings file.
        QTRY_VERIFY_WITH_TIMEOUT(answered, 30000);
        store->deletePassword(profile.name);
    }

    auto store = makeStore();
    QCOMPARE(store->names(), QStringList{profile.name});
    const std::optional<ConnectionProfile> loaded = store->load(profile.name);
    QVERIFY(loaded);
    QCOMPARE(loaded->connection.host, profile.connection.host);
    QCOMPARE(loaded->connection.port, profile.connection.port);
    QCOMPARE(loaded->connection.user, profile.connection.user);
    QCOMPARE(loaded->connection.database, 3);
    QVERIFY(loaded->connection.tls.enabled);
    QCOMPARE(loaded->connection.tls.serverName, profile.connection.tls.serverName);
    QVERIFY(!loaded->connection.tls.verifyPeer);
    QCOMPARE(loaded->prefix, QByteArray("rl"));
    QVERIFY(loaded->readOnly);
    QCOMPARE(loaded->actor, profile.actor);
    QVERIFY(loaded->connection.password.isEmpty());

    const QByteArray text = fileText(settingsPath());
    QVERIFY(text.contains("redis.example.net"));
    QVERIFY(!text.contains(kSecret.toUtf8()));
    QVERIFY(!text.contains("password"));
}

void ConnectionTest::dialogSavesNoPasswordToSettings()
{
    auto store = makeStore();
    ConnectionDialog dialog(store.get());
    dialog.findChild<QLineEdit*>(QStringLiteral("nameLineEdit"))->setText(QStringLiteral("t1"));
    dialog.findChild<QLineEdit*>(QStringLiteral("hostLineEdit"))->setText(QStringLiteral("localhost"));
    dialog.findChild<QLineEdit*>(QStringLiteral("passwordLineEdit"))->setText(kSecret);
    dialog.findChild<QCheckBox*>(QStringLiteral("readOnlyCheckBox"))->setChecked(true);
    QVERIFY(dialog.errorText().isEmpty());
    QTest::mouseClick(dialog.findChild<QPushButton*>(QStringLiteral("connectButton")),
                      Qt::LeftButton);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.sessionSettings().connection.password, kSecret);
    QVERIFY(dialog.sessionSettings().readOnly);
    QVERIFY(store->names().contains(QStringLiteral("t1")));
    // Let a keychain job (if any) finish before the check and the clean-up.
    QTest::qWait(500);
    store->deletePassword(QStringLiteral("t1"));
    QVERIFY(!fileText(settingsPath()).contains(kSecret.toUtf8()));
}

void ConnectionTest::dialogValidation_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("expected");

    QTest::newRow("empty host") << QString() << 6379 << QStringLiteral("tg") << QStringLiteral("Host");
    QTest::newRow("blank host") << QStringLiteral("  ") << 6379 << QStringLiteral("tg")
                                << QStringLiteral("Host");
    QTest::newRow("bad host") << QStringLiteral("redis://x") << 6379 << QStringLiteral("tg")
                              << QStringLiteral("Host");
    QTest::newRow("bad port") << QStringLiteral("localhost") << 0 << QStringLiteral("tg")
                              << QStringLiteral("Port");
    QTest::newRow("bad prefix") << QStringLiteral("localhost") << 6379 << QStringLiteral("a{b")
                                << QStringLiteral("prefix");
}

void ConnectionTest::dialogValidation()
{
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, prefix);
    QFETCH(QString, expected);

    auto store = makeStore();
    ConnectionDialog dialog(store.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.findChild<QLineEdit*>(QStringLiteral("nameLineEdit"))->setText(QStringLiteral("bad"));
    dialog.findChild<QLineEdit*>(QStringLiteral("hostLineEdit"))->setText(host);
    dialog.findChild<QSpinBox*>(QStringLiteral("portSpinBox"))->setValue(port);
    dialog.findChild<QLineEdit*>(QStringLiteral("prefixLineEdit"))->setText(prefix);

    // Immediate feedback: the error is on screen and Connect is off before any click.
    auto* error = dialog.findChild<QLabel*>(QStringLiteral("errorLabel"));
    QVERIFY(dialog.isVisible());
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(expected, Qt::CaseInsensitive), qPrintable(error->text()));
    auto* connectButton = dialog.findChild<QPushButton*>(QStringLiteral("connectButton"));
    QVERIFY(!connectButton->isEnabled());
    auto* hostEdit = dialog.findChild<QLineEdit*>(QStringLiteral("hostLineEdit"));
    hostEdit->setFocus();
    QTest::keyClick(hostEdit, Qt::Key_Return); // the default button must not slip through
    QTest::mouseClick(connectButton, Qt::LeftButton);
    QVERIFY(dialog.isVisible());
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY(store->names().isEmpty()); // nothing written
}

void ConnectionTest::demoServerStartsAndStops()
{
    if (DemoServer::redisServerPath().isEmpty())
        QSKIP("redis-server is not installed");
    DemoServer server;
    const Status started = server.start();
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    QVERIFY(server.isRunning());
    const quint16 port = server.port();
    const QString dir = server.dir();
    QVERIFY(port > 0);
    QVERIFY(QDir(dir).exists());
    QCOMPARE(server.url(), QStringLiteral("redis://127.0.0.1:%1").arg(port));
    {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
        QVERIFY(socket.waitForConnected(2000));
    }

    server.stop();
    QVERIFY(!server.isRunning());
    QVERIFY(!QDir(dir).exists());
    QTcpServer probe; // the port is free again
    QVERIFY(probe.listen(QHostAddress::LocalHost, port));
}

QTEST_MAIN(ConnectionTest)
#include "tst_Connection.moc"
