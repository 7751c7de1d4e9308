// The TTL of a key that hits keep renewing: a sliding log whose PTTL stays under a second. A
// TTL read once and counted down would show it as over ("—") a second after the read; the
// Keys page and the value viewer read the rows on screen again and keep showing a TTL.

#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"
#include "ui/keys/ValueViewer.h"

#include <QLabel>
#include <QRegularExpression>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

const QByteArray kKey = "tg:{renewed}:api:sl:1000";
// "0.8s": a countdown under a minute; "—" (over) and "gone" are what must not stay.
const QRegularExpression kCountdown(QStringLiteral("^\\d+\\.\\ds$"));

} // namespace

class KeysRereadTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void keysPageKeepsShowingARenewedTtl();
    void valueViewerKeepsShowingARenewedTtl();

private:
    void renewEvery200ms();

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    QTimer m_renew;
};

void KeysRereadTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("tester"));
    m_redis.command({"ZADD", kKey, "1700000000000000", "0000000000000001"});
    renewEvery200ms();
}

void KeysRereadTest::cleanupTestCase()
{
    m_renew.stop();
    m_session.reset();
}

// What a busy user's hits do to a sliding log of 1 s: its PTTL stays between 700 and 900 ms.
void KeysRereadTest::renewEvery200ms()
{
    m_redis.command({"PEXPIRE", kKey, "900"});
    m_renew.setInterval(200);
    connect(&m_renew, &QTimer::timeout, this, [this] {
        m_redis.command({"PEXPIRE", kKey, "900"});
    });
    m_renew.start();
}

void KeysRereadTest::keysPageKeepsShowingARenewedTtl()
{
    KeysPage page(m_session.get());
    page.resize(1024, 700);
    QSignalSpy finished(&page, &KeysPage::scanFinished);
    page.show();
    QVERIFY(finished.wait(10000));
    const int row = page.model()->rowOf(kKey);
    QVERIFY(row >= 0);
    const QModelIndex ttl = page.model()->index(row, KeysModel::TtlColumn);
    QTRY_VERIFY(page.model()->row(row).pttl > 0);
    QTest::qWait(2500); // several renewals; a TTL read once has run out by now
    QTRY_VERIFY2(kCountdown.match(ttl.data().toString()).hasMatch(),
                 qPrintable(ttl.data().toString()));
    QVERIFY(page.model()->row(row).pttl > 0 && page.model()->row(row).pttl <= 900);
}

void KeysRereadTest::valueViewerKeepsShowingARenewedTtl()
{
    ValueViewer viewer(m_session.get(), kKey);
    QSignalSpy loaded(&viewer, &ValueViewer::loaded);
    viewer.show();
    QVERIFY(loaded.wait(5000));
    auto* ttl = viewer.findChild<QLabel*>(QStringLiteral("ttlLabel"));
    QVERIFY(ttl);
    QTest::qWait(2500);
    QTRY_VERIFY2(ttl->text().startsWith(QStringLiteral("Expires in ")) &&
                     kCountdown.match(ttl->text().mid(11)).hasMatch(),
                 qPrintable(ttl->text()));
    QVERIFY(loaded.count() >= 2); // read again, not only counted down
    QCOMPARE(viewer.table()->rowCount(), 1);
}

QTEST_MAIN(KeysRereadTest)
#include "tst_KeysReread.moc"
