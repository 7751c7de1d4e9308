// The console given a Sentinel deployment (tests/support/RedisSentinelGroup): a profile of kind
// Sentinel in the connection dialog (sentinels, master name, both credentials, a replica only
// for a read-only profile) saved and read back; the status bar names the primary the sentinels
// chose and, after SENTINEL FAILOVER, the new one; the Topology page lists the primary, its
// replica with its lag, and the three sentinels; a read-only console on the replica.

#include "tests/support/RedisSentinelGroup.h"
#include "tests/support/TestEnv.h"
#include "ui/cluster/ClusterNodesModel.h"
#include "ui/cluster/ClusterPage.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"
#include "ui/shell/MainWindow.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisSentinelGroup;

class ConsoleOnSentinelTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sentinelProfile();
    void statusBarFollowsTheFailover();
    void topologyPage();
    void readOnlyConsoleOnAReplica();

private:
    Session::Settings settings(const QString& query = {}) const;
    QString endpointOf(int server)
    {
        return QStringLiteral("127.0.0.1:%1").arg(m_group.server(server).port());
    }

    QTemporaryDir m_dir;
    RedisSentinelGroup m_group;
    std::unique_ptr<ProfileStore> m_profiles;
};

void ConsoleOnSentinelTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_group, start());
    m_profiles = std::make_unique<ProfileStore>(std::make_unique<QSettings>(
        m_dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
}

Session::Settings ConsoleOnSentinelTest::settings(const QString& query) const
{
    Session::Settings s;
    s.connection = ConnectionOptions::fromUrl(m_group.url(query)).value();
    s.connection.reconnectMaxDelay = std::chrono::milliseconds(500);
    s.actor = QStringLiteral("tester");
    s.profileName = QStringLiteral("sentinel");
    return s;
}

void ConsoleOnSentinelTest::sentinelProfile()
{
    ConnectionDialog dialog(m_profiles.get());
    dialog.findChild<QLineEdit*>(QStringLiteral("nameLineEdit"))->setText(QStringLiteral("prod"));
    auto* box = dialog.findChild<QGroupBox*>(QStringLiteral("sentinelGroupBox"));
    QVERIFY(box);
    box->setChecked(true);
    auto* sentinels = dialog.findChild<QLineEdit*>(QStringLiteral("sentinelsLineEdit"));
    auto* master = dialog.findChild<QLineEdit*>(QStringLiteral("masterNameLineEdit"));
    sentinels->setText(QStringLiteral("10.0.0.1:26380, 10.0.0.2"));
    QVERIFY2(dialog.errorText().contains(QStringLiteral("Master name")),
             qPrintable(dialog.errorText()));
    master->setText(QStringLiteral("main"));
    QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
    sentinels->setText(QStringLiteral("10.0.0.1:99999"));
    QVERIFY2(dialog.errorText().contains(QStringLiteral("Sentinels:")),
             qPrintable(dialog.errorText()));
    sentinels->setText(QStringLiteral("10.0.0.1:26380, 10.0.0.2"));
    dialog.findChild<QLineEdit*>(QStringLiteral("sentinelUserLineEdit"))
        ->setText(QStringLiteral("watcher"));
    dialog.findChild<QLineEdit*>(QStringLiteral("sentinelPasswordLineEdit"))
        ->setText(QStringLiteral("s3"));
    // A replica only for a read-only profile.
    dialog.findChild<QCheckBox*>(QStringLiteral("replicaCheckBox"))->setChecked(true);
    QVERIFY2(dialog.errorText().contains(QStringLiteral("read-only")),
             qPrintable(dialog.errorText()));
    dialog.findChild<QCheckBox*>(QStringLiteral("readOnlyCheckBox"))->setChecked(true);
    QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));

    const ConnectionProfile profile = dialog.profile();
    const SentinelOptions& sentinel = profile.connection.sentinel;
    QCOMPARE(sentinel.masterName, QStringLiteral("main"));
    QCOMPARE(sentinel.sentinels.size(), size_t(2));
    QCOMPARE(sentinel.sentinels[1].text(), QStringLiteral("10.0.0.2:26379"));
    QCOMPARE(sentinel.user, QStringLiteral("watcher"));
    QCOMPARE(sentinel.password, QStringLiteral("s3"));
    QVERIFY(sentinel.replica);
    QVERIFY(!profile.summary().contains(QStringLiteral("s3")));

    // Saved without any password, read back the same.
    m_profiles->save(profile);
    const auto loaded = m_profiles->load(QStringLiteral("prod"));
    QVERIFY(loaded);
    QCOMPARE(loaded->connection.sentinel.sentinels, sentinel.sentinels);
    QCOMPARE(loaded->connection.sentinel.masterName, QStringLiteral("main"));
    QCOMPARE(loaded->connection.sentinel.user, QStringLiteral("watcher"));
    QVERIFY(loaded->connection.sentinel.replica);
    QVERIFY(loaded->connection.sentinel.password.isEmpty());
    QFile ini(m_dir.filePath(QStringLiteral("settings.ini")));
    QVERIFY(ini.open(QIODevice::ReadOnly));
    QVERIFY(!ini.readAll().contains("s3"));
}

void ConsoleOnSentinelTest::statusBarFollowsTheFailover()
{
    MainWindow window(m_profiles.get());
    window.setSession(std::make_unique<Session>(settings()));
    window.show();
    auto* server = window.findChild<QLabel*>(QStringLiteral("serverLabel"));
    QVERIFY(server);
    const int old = m_group.primaryIndex();
    QTRY_VERIFY_WITH_TIMEOUT(
        server->text().contains(endpointOf(old) + QStringLiteral(", primary of 'tollgate'")),
        15'000);
    QVERIFY(m_group.failover());
    QVERIFY2(m_group.waitForPrimaryOtherThan(old, true), qPrintable(m_group.errorString()));
    const int now = m_group.primaryIndex();
    QTRY_VERIFY_WITH_TIMEOUT(
        server->text().contains(endpointOf(now) + QStringLiteral(", primary of 'tollgate'")),
        20'000);
}

void ConsoleOnSentinelTest::topologyPage()
{
    Session session(settings());
    session.open();
    QTRY_VERIFY_WITH_TIMEOUT(session.state() == ConnectionState::Connected, 15'000);
    ClusterPage page(&session);
    QAbstractItemModelTester tester(page.model());
    page.show();
    const int primary = m_group.primaryIndex();
    const int replica = 1 - primary;
    // The replica's lag shows once it has acknowledged the primary's offset.
    QTRY_VERIFY_WITH_TIMEOUT(page.model()->rowCount() == 5 && page.model()->rows()[1].lagBytes >= 0,
                             20'000);
    const auto& rows = page.model()->rows();
    QCOMPARE(rows[0].address, endpointOf(primary));
    QCOMPARE(rows[0].role, QStringLiteral("primary"));
    QCOMPARE(rows[1].address, endpointOf(replica));
    QCOMPARE(rows[1].role, QStringLiteral("replica"));
    QCOMPARE(rows[1].primary, endpointOf(primary));
    for (int i = 2; i < 5; ++i) {
        QCOMPARE(rows[size_t(i)].role, QStringLiteral("sentinel"));
        QCOMPARE(rows[size_t(i)].link, NodeLink::Connected);
    }
    const QString lag = page.model()->index(1, ClusterNodesModel::LagColumn).data().toString();
    QVERIFY2(lag.contains(QStringLiteral(" s")), qPrintable(lag));
    auto* summary = page.findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY2(summary->text().contains(QStringLiteral("3 of 3 sentinels")),
             qPrintable(summary->text()));
}

void ConsoleOnSentinelTest::readOnlyConsoleOnAReplica()
{
    Session::Settings s = settings(QStringLiteral("?replica=1"));
    s.readOnly = true;
    MainWindow window(m_profiles.get());
    window.setSession(std::make_unique<Session>(s));
    window.show();
    const int replica = 1 - m_group.primaryIndex();
    auto* server = window.findChild<QLabel*>(QStringLiteral("serverLabel"));
    QTRY_VERIFY_WITH_TIMEOUT(
        server->text().contains(endpointOf(replica) + QStringLiteral(", a replica of 'tollgate'")),
        15'000);
}

QTEST_MAIN(ConsoleOnSentinelTest)
#include "tst_ConsoleOnSentinel.moc"
