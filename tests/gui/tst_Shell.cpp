// The main window against a real redis-server: the connection banner through a server crash,
// and the write-permission convention (ui/shell/WriteActions.h) for a read-only profile and
// for an ACL user without write rights.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Blocking.h"
#include "tollgate/Limiter.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionBanner.h"
#include "ui/connection/ProfileStore.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/WriteActions.h"

#include <QAbstractButton>
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

namespace {

/// Every button or action that looks like a write by its name, or is marked as one.
QList<QObject*> writeLookingObjects(QWidget* root)
{
    static const QRegularExpression name(
        QStringLiteral("^(ban|unban|reset|save|delete|repair|run)"),
        QRegularExpression::CaseInsensitiveOption);
    QList<QObject*> found;
    QList<QObject*> candidates;
    for (QAbstractButton* button : root->findChildren<QAbstractButton*>())
        candidates << button;
    for (QAction* action : root->findChildren<QAction*>())
        candidates << action;
    for (QObject* object : candidates) {
        const QVariant marked = object->property(shell::kWriteProperty);
        if (marked.isValid() && marked.typeId() == QMetaType::Bool && !marked.toBool())
            continue; // explicitly "not a write" (e.g. resetFilterButton)
        if (marked.isValid() || name.match(object->objectName()).hasMatch())
            found << object;
    }
    return found;
}

bool isEnabled(QObject* object)
{
    if (auto* widget = qobject_cast<QWidget*>(object))
        return widget->isEnabled();
    return qobject_cast<QAction*>(object)->isEnabled();
}

QString toolTip(QObject* object)
{
    if (auto* widget = qobject_cast<QWidget*>(object))
        return widget->toolTip();
    return qobject_cast<QAction*>(object)->toolTip();
}

} // namespace

class ShellTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void connectsAndShowsPages();
    void bannerFollowsServerCrashAndRecovery();
    void closedPortSaysSoOnce();
    void readOnlyProfileDisablesWrites();
    void aclUserWithoutWriteRightsHasWritesDisabled();

private:
    Session::Settings settings() const;
    std::unique_ptr<MainWindow> openWindow(Session::Settings settings);
    /// Adds a marked button to a page, the way every page marks its writes.
    QPushButton* addProbe(MainWindow& window, Session::Write write);
    void verifyWritesDisabled(MainWindow& window, const QString& reasonContains);

    RedisServer m_redis;
    QTemporaryDir m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
};

void ShellTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
}

void ShellTest::init()
{
    m_profiles = std::make_unique<ProfileStore>(std::make_unique<QSettings>(
        m_dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
    if (!m_redis.isRunning())
        TOLLGATE_REQUIRE(m_redis, restart());
}

void ShellTest::cleanup()
{
    m_profiles.reset();
}

Session::Settings ShellTest::settings() const
{
    Session::Settings s;
    s.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    s.connection.reconnectMaxDelay = std::chrono::milliseconds(500);
    s.actor = QStringLiteral("tester");
    s.profileName = QStringLiteral("test");
    return s;
}

std::unique_ptr<MainWindow> ShellTest::openWindow(Session::Settings s)
{
    auto window = std::make_unique<MainWindow>(m_profiles.get());
    window->setSession(std::make_unique<Session>(std::move(s)));
    window->show();
    return window;
}

QPushButton* ShellTest::addProbe(MainWindow& window, Session::Write write)
{
    QWidget* page = window.page(window.pageKeys().first());
    auto* button = new QPushButton(QStringLiteral("Probe"), page);
    button->setObjectName(QStringLiteral("probeWriteButton"));
    button->setProperty(shell::kWriteProperty, int(write));
    button->setToolTip(QStringLiteral("Does a write"));
    button->show();
    return button;
}

void ShellTest::verifyWritesDisabled(MainWindow& window, const QString& reasonContains)
{
    // The user detail dialog is reachable from the shell too (Find user).
    QWidget* user = window.openUser("someone");
    QTest::qWait(300); // its first replies may enable buttons: they must stay off
    int checked = 0;
    for (QObject* object : writeLookingObjects(&window)) {
        ++checked;
        const QString what = object->objectName() + QStringLiteral(" in ") +
                             (object->parent() ? object->parent()->objectName() : QString());
        QVERIFY2(!isEnabled(object), qPrintable(what + QStringLiteral(" is enabled")));
        QVERIFY2(toolTip(object).contains(reasonContains, Qt::CaseInsensitive),
                 qPrintable(what + QStringLiteral(": tooltip \"") + toolTip(object) +
                            QStringLiteral("\"")));
    }
    QVERIFY(checked >= 1);
    if (user)
        user->close();
}

void ShellTest::connectsAndShowsPages()
{
    auto window = openWindow(settings());
    QTRY_COMPARE_WITH_TIMEOUT(window->banner()->look(), ConnectionBanner::Look::Connected, 10000);
    QVERIFY(window->banner()->text().contains(QStringLiteral("Connected to 127.0.0.1:%1 as default")
                                                  .arg(m_redis.port())));
    auto* server = window->findChild<QLabel*>(QStringLiteral("serverLabel"));
    QTRY_VERIFY_WITH_TIMEOUT(server->text().startsWith(QStringLiteral("Redis 7")) ||
                                 server->text().startsWith(QStringLiteral("Redis 6")),
                             5000);

    const QStringList keys{
        QStringLiteral("dashboard"), QStringLiteral("subjects"), QStringLiteral("policies"),
        QStringLiteral("keys"),      QStringLiteral("lua"),      QStringLiteral("slowlog"),
        QStringLiteral("audit"),     QStringLiteral("cluster"),  QStringLiteral("services")};
    QCOMPARE(window->pageKeys(), keys);
    auto* stack = window->findChild<QStackedWidget*>(QStringLiteral("pageStackedWidget"));
    QVERIFY(QTest::qWaitForWindowActive(window.get()));
    for (int i = 0; i < keys.size(); ++i) { // Ctrl+1..9
        QTest::keyClick(window.get(), Qt::Key(Qt::Key_1 + i), Qt::ControlModifier);
        QCOMPARE(stack->currentIndex(), i);
        QCOMPARE(window->currentPageKey(), keys.at(i));
    }
    QTest::keyClick(window.get(), Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(window->findChild<QLineEdit*>(QStringLiteral("findUserLineEdit"))->hasFocus());
}

void ShellTest::bannerFollowsServerCrashAndRecovery()
{
    auto window = openWindow(settings());
    ConnectionBanner* banner = window->banner();
    QTRY_COMPARE_WITH_TIMEOUT(banner->look(), ConnectionBanner::Look::Connected, 10000);

    m_redis.kill();
    QTRY_COMPARE_WITH_TIMEOUT(banner->look(), ConnectionBanner::Look::Reconnecting, 10000);
    QVERIFY2(banner->text().contains(QStringLiteral("retrying")), qPrintable(banner->text()));

    TOLLGATE_REQUIRE(m_redis, restart());
    QTRY_COMPARE_WITH_TIMEOUT(banner->look(), ConnectionBanner::Look::Connected, 15000);
    QVERIFY(banner->text().startsWith(QStringLiteral("Connected")));

    // The view recovers too: a subject counted after the restart shows up on the subjects page.
    QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(window->currentPageKey(), QStringLiteral("subjects"));
    Client client(*ConnectionOptions::fromUrl(m_redis.url()));
    client.open();
    Policy policy;
    policy.action = "comment";
    policy.windows = {{10, 30'000}};
    auto hit = waitFor<HitResult>([&](auto done) {
        Limiter(&client, KeySchema()).hit(policy, "after-restart", 1, nullptr, done);
    });
    QVERIFY2(hit, qPrintable(hit ? QString() : hit.error().toString()));
    auto* model = window->findChild<QAbstractItemModel*>(QStringLiteral("subjectsModel"));
    QVERIFY(model);
    QTRY_VERIFY_WITH_TIMEOUT(
        !model->match(model->index(0, 0), Qt::DisplayRole, QStringLiteral("after-restart"), 1,
                      Qt::MatchExactly)
             .isEmpty(),
        10000);
}

void ShellTest::closedPortSaysSoOnce()
{
    Session::Settings s = settings();
    s.connection.port = 1; // nothing listens there: connection refused
    auto window = openWindow(s);
    ConnectionBanner* banner = window->banner();
    QTRY_COMPARE_WITH_TIMEOUT(banner->look(), ConnectionBanner::Look::Failed, 10000);
    const QString endpoint = s.connection.endpoint();
    QVERIFY2(banner->text().count(endpoint) == 1, qPrintable(banner->text()));
    auto* role = window->findChild<QLabel*>(QStringLiteral("roleLabel"));
    QVERIFY2(!role->text().contains(QStringLiteral("read and write")), qPrintable(role->text()));
    QVERIFY2(role->text().contains(QStringLiteral("not connected")), qPrintable(role->text()));
    QVERIFY(!window->session()->canWrite(Session::Write::Ban));
}

void ShellTest::readOnlyProfileDisablesWrites()
{
    Session::Settings s = settings();
    s.readOnly = true;
    auto window = openWindow(s);
    QTRY_COMPARE_WITH_TIMEOUT(window->banner()->look(), ConnectionBanner::Look::Connected, 10000);
    QVERIFY(window->banner()->text().contains(QStringLiteral("read-only")));

    QPushButton* probe = addProbe(*window, Session::Write::Ban);
    QTRY_VERIFY(!probe->isEnabled());
    probe->setEnabled(true); // a page re-enabling it on a selection change
    QVERIFY(!probe->isEnabled());
    verifyWritesDisabled(*window, QStringLiteral("read-only"));
    QVERIFY(window->findChild<QLabel*>(QStringLiteral("roleLabel"))
                ->text()
                .contains(QStringLiteral("Read-only")));
}

void ShellTest::aclUserWithoutWriteRightsHasWritesDisabled()
{
    const QByteArray reply = m_redis.command(
        {"ACL", "SETUSER", "viewer", "reset", "on", ">pw", "~*", "&*", "+@read", "+@connection",
         "+@pubsub", "+info", "+client", "+acl|dryrun"});
    QCOMPARE(reply, QByteArray("+OK\r\n"));

    Session::Settings s = settings();
    s.connection.user = QStringLiteral("viewer");
    s.connection.password = QStringLiteral("pw");
    auto window = openWindow(s);
    QSignalSpy permissions(window->session(), &Session::permissionsChanged);
    QTRY_COMPARE_WITH_TIMEOUT(window->banner()->look(), ConnectionBanner::Look::Connected, 10000);
    QVERIFY(window->banner()->text().contains(QStringLiteral("as viewer")));
    QTRY_VERIFY_WITH_TIMEOUT(permissions.count() >= 1, 10000);
    QVERIFY(!window->session()->canWrite(Session::Write::Ban));
    QVERIFY(!window->session()->canWrite(Session::Write::DeleteKey));

    QPushButton* probe = addProbe(*window, Session::Write::DeleteKey);
    QTRY_VERIFY(!probe->isEnabled());
    QVERIFY(probe->toolTip().contains(QStringLiteral("viewer")));
    verifyWritesDisabled(*window, QStringLiteral("viewer"));
    // Without EVALSHA even the read-only rights check cannot run: unknown, and said so.
    QVERIFY(window->findChild<QLabel*>(QStringLiteral("roleLabel"))
                ->text()
                .contains(QStringLiteral("rights unknown")));

    // Rights are per session: a user with them gets the button back enabled.
    window->setSession(std::make_unique<Session>(settings()));
    probe = addProbe(*window, Session::Write::DeleteKey);
    // Writes stay guarded from the connection until the rights check answers (maybe before a
    // spy could be attached): wait for the state, not for a number of signals.
    QTRY_VERIFY_WITH_TIMEOUT(probe->isEnabled(), 10000);
    QCOMPARE(probe->toolTip(), QStringLiteral("Does a write"));
}

QTEST_MAIN(ShellTest)
#include "tst_Shell.moc"
