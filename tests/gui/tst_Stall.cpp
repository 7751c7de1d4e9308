// A Redis that stops answering but keeps its connection (SIGSTOP) is shown as such: the
// session notices within its response deadline and blocks writes, the banner says since when.

#include "tests/gui/PausedRedis.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionBanner.h"

#include <QElapsedTimer>
#include <QSignalSpy>
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

QTEST_MAIN(tst_Stall)
#include "tst_Stall.moc"
