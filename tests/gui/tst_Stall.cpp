// A Redis that stops answering but keeps its connection (SIGSTOP) is shown as such: the
// session notices within its response deadline and blocks writes, the banner says since when,
// every page greys its last figures, and a user detail opened meanwhile says it is waiting.

#include "tests/gui/PausedRedis.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionBanner.h"
#include "ui/connection/ProfileStore.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/shell/MainWindow.h"
#include "ui/subjects/SubjectsLoader.h"
#include "ui/subjects/SubjectsPage.h"
#include "ui/user/BanDialog.h"
#include "ui/user/OverrideDialog.h"
#include "ui/user/ReasonDialog.h"
#include "ui/user/UserDetailDialog.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::PausedRedis;
using tollgate::test::RedisServer;

namespace {
constexpr std::chrono::milliseconds kDeadline{1000};
// The deadline, the probe interval and a margin for a loaded machine.
constexpr int kNoticeMs = 1000 + 1000 + 1500;
} // namespace

class tst_Stall : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void sessionBlocksWritesWhileNotResponding();
    void bannerSaysNotResponding();
    void everyPageGreysWhileNotResponding();
    void dashboardSaysStaleSince();
    void userDetailWaitsForRedis();
    void openDialogsWaitForRedis();
    void subjectsLoadAfterTheStall();

private:
    std::unique_ptr<Session> connected();

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
};

void tst_Stall::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
}

void tst_Stall::cleanup()
{
    m_session.reset();
}

std::unique_ptr<Session> tst_Stall::connected()
{
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("tester");
    settings.responseDeadline = kDeadline;
    auto session = std::make_unique<Session>(settings);
    session->open();
    if (!QTest::qWaitFor([&] { return session->canWrite(Session::Write::Ban); }, 10'000))
        qWarning("the session did not connect and check its rights");
    return session;
}

void tst_Stall::sessionBlocksWritesWhileNotResponding()
{
    m_session = connected();
    QVERIFY(m_session->isResponsive());
    QSignalSpy rights(m_session.get(), &Session::permissionsChanged);
    QSignalSpy changed(m_session.get(), &Session::responsivenessChanged);

    QElapsedTimer stalled;
    PausedRedis pause(m_redis);
    stalled.start();
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isResponsive(), kNoticeMs);
    QVERIFY2(stalled.elapsed() < kNoticeMs, qPrintable(QString::number(stalled.elapsed())));
    QCOMPARE(m_session->state(), ConnectionState::Connected); // the socket is still open
    QVERIFY(m_session->unresponsiveSince().isValid());
    const QString reason = m_session->writeBlockedReason(Session::Write::Ban);
    QVERIFY2(reason.startsWith(QStringLiteral("Redis not responding since ")), qPrintable(reason));
    QVERIFY(!m_session->canWrite(Session::Write::EditPolicy));
    QVERIFY(!rights.isEmpty()); // pages that guard their writes re-evaluate
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().first().toBool(), false);

    pause.resume();
    QTRY_VERIFY_WITH_TIMEOUT(m_session->isResponsive(), 3000);
    QTRY_VERIFY_WITH_TIMEOUT(m_session->canWrite(Session::Write::Ban), 3000);
    QCOMPARE(changed.count(), 2);
}

void tst_Stall::bannerSaysNotResponding()
{
    m_session = connected();
    ConnectionBanner banner;
    banner.setSession(m_session.get());
    banner.show();
    QCOMPARE(banner.look(), ConnectionBanner::Look::Connected);

    PausedRedis pause(m_redis);
    QTRY_COMPARE_WITH_TIMEOUT(banner.look(), ConnectionBanner::Look::NotResponding, kNoticeMs);
    QVERIFY2(banner.text().startsWith(QStringLiteral("Redis not responding since ")),
             qPrintable(banner.text()));
    pause.resume();
    QTRY_COMPARE_WITH_TIMEOUT(banner.look(), ConnectionBanner::Look::Connected, 3000);
    QVERIFY(banner.text().startsWith(QStringLiteral("Connected to ")));
}

void tst_Stall::everyPageGreysWhileNotResponding()
{
    QTemporaryDir dir;
    ProfileStore profiles(
        std::make_unique<QSettings>(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat));
    MainWindow window(&profiles);
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("tester");
    settings.responseDeadline = kDeadline;
    window.setSession(std::make_unique<Session>(settings));
    window.resize(1280, 800);
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(window.banner()->look(), ConnectionBanner::Look::Connected, 10'000);

    PausedRedis pause(m_redis);
    QTRY_COMPARE_WITH_TIMEOUT(window.banner()->look(), ConnectionBanner::Look::NotResponding,
                              kNoticeMs);
    for (const QString& key : window.pageKeys()) {
        window.showPage(key);
        QWidget* page = window.page(key);
        QVERIFY2(page->property("stale").toBool(), qPrintable(key));
        const QColor text = page->palette().color(QPalette::Active, QPalette::WindowText);
        QCOMPARE(text, page->palette().color(QPalette::Disabled, QPalette::Text));
    }
    pause.resume();
    QTRY_COMPARE_WITH_TIMEOUT(window.banner()->look(), ConnectionBanner::Look::Connected, 3000);
    for (const QString& key : window.pageKeys())
        QVERIFY2(!window.page(key)->property("stale").toBool(), qPrintable(key));
}

void tst_Stall::dashboardSaysStaleSince()
{
    m_session = connected();
    DashboardPage page(m_session.get());
    page.resize(1280, 700);
    page.show();
    auto* status = page.findChild<QLabel*>(QStringLiteral("statusLabel"));
    QTRY_VERIFY_WITH_TIMEOUT(!status->text().isEmpty(), 5000);

    PausedRedis pause(m_redis);
    QTRY_VERIFY_WITH_TIMEOUT(page.property("stale").toBool(), kNoticeMs);
    QVERIFY2(status->text().startsWith(QStringLiteral("Stale since ")), qPrintable(status->text()));
    // The samples in flight time out meanwhile: the note stays, no bare "timeout" replaces it.
    QTest::qWait(6000);
    QVERIFY2(status->text().startsWith(QStringLiteral("Stale since ")), qPrintable(status->text()));

    pause.resume();
    QTRY_VERIFY_WITH_TIMEOUT(!page.property("stale").toBool(), 3000);
    QTRY_VERIFY_WITH_TIMEOUT(!status->text().startsWith(QStringLiteral("Stale")), 3000);
}

void tst_Stall::userDetailWaitsForRedis()
{
    m_session = connected();
    PausedRedis pause(m_redis);
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isResponsive(), kNoticeMs);

    UserDetailDialog dialog(m_session.get(), "alice");
    dialog.show();
    auto* summary = dialog.findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY2(summary->text().startsWith(QStringLiteral("Waiting for Redis")),
             qPrintable(summary->text()));
    for (const char* name : {"banButton", "resetButton", "addOverrideButton", "giveMoreButton"}) {
        auto* button = dialog.findChild<QPushButton*>(QLatin1String(name));
        QVERIFY2(button && !button->isEnabled(), name);
        QVERIFY2(button->toolTip().startsWith(QStringLiteral("Redis not responding")), name);
    }
    // Its loads time out meanwhile; it still waits rather than showing an empty user.
    QTest::qWait(6000);
    QVERIFY2(summary->text().startsWith(QStringLiteral("Waiting for Redis")),
             qPrintable(summary->text()));

    pause.resume();
    QTRY_VERIFY_WITH_TIMEOUT(!summary->text().startsWith(QStringLiteral("Waiting")), 5000);
    QTRY_VERIFY(dialog.findChild<QPushButton*>(QStringLiteral("banButton"))->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(summary->text() != QStringLiteral("Loading…"), 5000);
}

// Ban…, Unban…, Reset… and Give more… already open when Redis stops answering: OK follows the
// session, off with "Waiting for Redis" while it is stalled, on again once it answers.
void tst_Stall::openDialogsWaitForRedis()
{
    m_session = connected();
    Policy policy;
    policy.action = "comment";
    policy.windows = {{10, 60'000}};
    std::vector<std::unique_ptr<QDialog>> dialogs;
    dialogs.push_back(std::make_unique<BanDialog>(m_session.get(), "alice", QList<QByteArray>{}));
    dialogs.push_back(std::make_unique<ReasonDialog>(
        m_session.get(), ReasonDialog::Operation::Unban, "alice", QList<QByteArray>{}));
    dialogs.push_back(std::make_unique<ReasonDialog>(
        m_session.get(), ReasonDialog::Operation::Reset, "alice", QList<QByteArray>{}));
    dialogs.push_back(std::make_unique<OverrideDialog>(m_session.get(), "alice",
                                                       std::vector<Policy>{policy}, "comment",
                                                       OverrideDialog::Preset::GiveMore));
    const QStringList oks{QStringLiteral("applyBanButton"), QStringLiteral("applyUnbanButton"),
                          QStringLiteral("applyResetButton"),
                          QStringLiteral("applyOverrideButton")};
    auto ok = [&](size_t i) { return dialogs[i]->findChild<QPushButton*>(oks[qsizetype(i)]); };
    for (size_t i = 0; i < dialogs.size(); ++i) {
        dialogs[i]->show();
        dialogs[i]
            ->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"))
            ->setText(QStringLiteral("support ticket"));
        QVERIFY2(ok(i) && ok(i)->isEnabled(), qPrintable(oks[qsizetype(i)]));
    }

    PausedRedis pause(m_redis);
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isResponsive(), kNoticeMs);
    for (size_t i = 0; i < dialogs.size(); ++i) {
        QTRY_VERIFY2(!ok(i)->isEnabled(), qPrintable(oks[qsizetype(i)]));
        auto* error = dialogs[i]->findChild<QLabel*>(QStringLiteral("errorLabel"));
        QVERIFY2(error && error->isVisibleTo(dialogs[i].get()), qPrintable(oks[qsizetype(i)]));
        QVERIFY2(
            error->text().startsWith(QStringLiteral("Waiting for Redis (not responding since ")),
            qPrintable(error->text()));
    }

    pause.resume();
    QTRY_VERIFY_WITH_TIMEOUT(m_session->isResponsive(), 3000);
    for (size_t i = 0; i < dialogs.size(); ++i) {
        QTRY_VERIFY2(ok(i)->isEnabled(), qPrintable(oks[qsizetype(i)]));
        auto* error = dialogs[i]->findChild<QLabel*>(QStringLiteral("errorLabel"));
        QVERIFY2(!error->text().startsWith(QStringLiteral("Waiting")), qPrintable(error->text()));
    }
}

void tst_Stall::subjectsLoadAfterTheStall()
{
    m_session = connected();
    PausedRedis pause(m_redis);
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isResponsive(), kNoticeMs);
    SubjectsPage page(m_session.get());
    page.show();
    QTest::qWait(6000); // the first pass times out meanwhile
    QVERIFY(!page.loader()->firstPassDone());

    // Once Redis answers the page loads, instead of waiting for a pass that failed.
    pause.resume();
    QTRY_VERIFY_WITH_TIMEOUT(page.loader()->firstPassDone(), 10'000);
}

QTEST_MAIN(tst_Stall)
#include "tst_Stall.moc"
