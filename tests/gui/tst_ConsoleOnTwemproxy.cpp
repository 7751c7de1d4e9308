// The console on a real Twemproxy pool (Debian's nutcracker over two redis-servers), connected as
// an operator would: redis+twemproxy:// with the nutcracker YAML file and the stats port. The
// Subjects and Keys pages list the users and keys of both backends (a stream's summary read
// through the proxy too), the Topology page shows the proxy, each backend with its own figures
// and what nutcracker's stats say of it, and a paused backend is shown ejected and unreachable,
// then back. The demo's pool (`tollgate --demo --twemproxy`) starts, is reached by the same
// URL, and its scheduled pauses make the proxy eject a backend.

#include "app/demo/DemoPool.h"
#include "core/client/TwemproxyStats.h"
#include "tests/support/TestEnv.h"
#include "tests/support/Twemproxy.h"
#include "ui/cluster/ClusterNodesModel.h"
#include "ui/cluster/ClusterPage.h"
#include "ui/common/Session.h"
#include "ui/connection/ServerText.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::Twemproxy;

class ConsoleOnTwemproxyTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void statusNamesThePool();
    void subjectsFromEveryBackend();
    void keysPageOnEveryBackend();
    void topologyShowsTheProxyAndItsBackends();
    void aPausedBackendIsShownEjectedThenBack();
    void demoPoolEjectsABackendNowAndThen();

private:
    void hit(const QByteArray& user, int times);
    /// The rows of a Topology page once a sample for which `ready` holds has arrived.
    bool waitForRows(ClusterPage* page,
                     const std::function<bool(const std::vector<ClusterNodeRow>&)>& ready);

    Twemproxy m_pool;
    std::unique_ptr<Session> m_session;
    Policy m_policy;
    QList<QByteArray> m_users; // two on each backend
};

void ConsoleOnTwemproxyTest::initTestCase()
{
    QVERIFY2(m_pool.start(), qPrintable(m_pool.errorString()));
    const QString url = QStringLiteral("redis+twemproxy://%1?config=%2&pool=%3&stats=127.0.0.1:%4")
                            .arg(m_pool.address(), m_pool.configPath(), m_pool.poolName())
                            .arg(m_pool.statsPort());
    auto options = ConnectionOptions::fromUrl(url);
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    QCOMPARE(options->twemproxy.backendNames,
             (QStringList{QStringLiteral("r1"), QStringLiteral("r2")}));
    QCOMPARE(options->twemproxy.stats.port, m_pool.statsPort());
    QCOMPARE(ConnectionOptions::fromUrl(options->toUrl())->twemproxy.stats.port,
             m_pool.statsPort());

    Session::Settings settings;
    settings.connection = *options;
    settings.actor = QStringLiteral("tester");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY_WITH_TIMEOUT(m_session->state() == ConnectionState::Connected, 10'000);

    m_policy.action = "vote";
    m_policy.windows = {{10, 60'000}};
    bool saved = false;
    m_session->policies().save(m_policy, QStringLiteral("tester"), this, [&](Result<qint64> r) {
        QVERIFY2(r.ok(), qPrintable(r ? QString() : r.error().toString()));
        saved = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(saved, 10'000);

    // Users whose keys the proxy puts on each backend, two each.
    const KeySchema schema("tg");
    int taken[2] = {0, 0};
    for (int i = 0; m_users.size() < 4 && i < 200; ++i) {
        const QByteArray user = "voter-" + QByteArray::number(i);
        hit(user, 1);
        const int backend =
            m_pool.backendHolding(schema.stateKey(user, "vote", Algorithm::FixedWindow, 60'000));
        if (backend >= 0 && taken[backend]++ < 2)
            m_users << user;
    }
    QCOMPARE(m_users.size(), 4);
}

void ConsoleOnTwemproxyTest::cleanupTestCase()
{
    m_session.reset();
    m_pool.stop();
}

void ConsoleOnTwemproxyTest::hit(const QByteArray& user, int times)
{
    int done = 0;
    for (int i = 0; i < times; ++i)
        m_session->limiter().hit(m_policy, user, 1, this, [&](Result<HitResult> r) {
            QVERIFY2(r.ok(), qPrintable(r ? QString() : r.error().toString()));
            ++done;
        });
    QTRY_COMPARE_WITH_TIMEOUT(done, times, 10'000);
}

bool ConsoleOnTwemproxyTest::waitForRows(
    ClusterPage* page, const std::function<bool(const std::vector<ClusterNodeRow>&)>& ready)
{
    return QTest::qWaitFor(
        [&] {
            QSignalSpy refreshed(page, &ClusterPage::refreshed);
            page->refresh();
            return refreshed.wait(8'000) && ready(page->model()->rows());
        },
        30'000);
}

void ConsoleOnTwemproxyTest::statusNamesThePool()
{
    QCOMPARE(serverText(*m_session->client()),
             QStringLiteral("%1, a Twemproxy pool of 2 backends").arg(m_pool.address()));
}

void ConsoleOnTwemproxyTest::subjectsFromEveryBackend()
{
    hit(m_users[1], 2);
    SubjectsPage page(m_session.get());
    page.show();
    SubjectsModel* model = page.model();
    QTRY_VERIFY_WITH_TIMEOUT(model->viewRowOf(m_users[1], "vote") >= 0, 15'000);
    for (const QByteArray& user : std::as_const(m_users))
        QTRY_VERIFY2_WITH_TIMEOUT(model->viewRowOf(user, "vote") >= 0, user.constData(), 15'000);
    QCOMPARE(
        model->index(model->viewRowOf(m_users[1], "vote"), SubjectsModel::Count).data().toString(),
        QStringLiteral("3 / 10"));
}

void ConsoleOnTwemproxyTest::keysPageOnEveryBackend()
{
    // A ban writes the user's audit stream, which the page summarises with XLEN/XREVRANGE:
    // commands the proxy does not forward, read as a script on the stream's backend.
    const QByteArray banned = m_users.first();
    std::optional<bool> done;
    m_session->moderation().ban(
        {banned, "vote", QStringLiteral("tester"), QStringLiteral("spam"), 600'000, 0}, this,
        [&](Result<BanInfo> r) { done = r.ok(); });
    QTRY_VERIFY_WITH_TIMEOUT(done.has_value(), 10'000);
    QVERIFY(*done);

    KeysPage page(m_session.get());
    page.resize(1000, 600);
    page.show();
    QSignalSpy finished(&page, &KeysPage::scanFinished);
    page.startScan();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 15'000);
    const KeySchema schema("tg");
    for (const QByteArray& user : std::as_const(m_users))
        QVERIFY2(
            page.model()->rowOf(schema.stateKey(user, "vote", Algorithm::FixedWindow, 60'000)) >= 0,
            user.constData());
    const int stream = page.model()->rowOf(schema.userAuditKey(banned));
    QVERIFY(stream >= 0);
    const QModelIndex value = page.model()->index(stream, KeysModel::ValueColumn);
    QTRY_VERIFY_WITH_TIMEOUT(!value.data().toString().isEmpty(), 10'000);
    QVERIFY2(!value.data().toString().contains(QStringLiteral("Twemproxy")),
             qPrintable(value.data().toString()));
}

void ConsoleOnTwemproxyTest::topologyShowsTheProxyAndItsBackends()
{
    ClusterPage page(m_session.get());
    page.show();
    QVERIFY(waitForRows(&page, [](const std::vector<ClusterNodeRow>& rows) {
        return rows.size() == 3 && rows[1].stats.keys > 0 && rows[2].stats.keys > 0;
    }));
    const std::vector<ClusterNodeRow>& rows = page.model()->rows();
    QCOMPARE(rows[0].role, QStringLiteral("proxy"));
    QCOMPARE(rows[0].address, m_pool.address());
    QCOMPARE(rows[0].link, NodeLink::Connected);
    QVERIFY2(rows[0].proxyView.contains(QStringLiteral("nutcracker 0.5")),
             qPrintable(rows[0].proxyView));
    for (int i = 0; i < 2; ++i) {
        const ClusterNodeRow& backend = rows[size_t(i + 1)];
        QCOMPARE(backend.role, QStringLiteral("backend"));
        QCOMPARE(backend.id, Twemproxy::backendName(i).toUtf8());
        QCOMPARE(backend.address, QStringLiteral("127.0.0.1:%1").arg(m_pool.backend(i).port()));
        QCOMPARE(backend.link, NodeLink::Connected);
        QVERIFY2(backend.proxyView.contains(QStringLiteral("never ejected")),
                 qPrintable(backend.proxyView));
    }
    auto* summary = page.findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY2(summary->text().contains(QStringLiteral("2 of 2 backends answer")),
             qPrintable(summary->text()));
    QVERIFY(!page.findChild<QTableView*>()->isColumnHidden(ClusterNodesModel::ProxyColumn));
    QVERIFY(page.findChild<QTableView*>()->isColumnHidden(ClusterNodesModel::SlotsColumn));
}

void ConsoleOnTwemproxyTest::aPausedBackendIsShownEjectedThenBack()
{
    ClusterPage page(m_session.get());
    page.show();
    QVERIFY(m_pool.pause(0));
    // Traffic to the paused backend's users makes the proxy time out and eject it.
    const qint64 before = m_pool.ejections();
    QVERIFY(QTest::qWaitFor(
        [&] {
            m_pool.command({"INCR", "probe:{" + m_users[0] + "}"}, 600);
            return m_pool.ejections() > before;
        },
        15'000));
    QVERIFY(waitForRows(&page, [](const std::vector<ClusterNodeRow>& rows) {
        return rows.size() == 3 && rows[1].link == NodeLink::Unreachable &&
               rows[1].proxyView.contains(QStringLiteral("ejected at"));
    }));
    auto* summary = page.findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY2(summary->text().contains(QStringLiteral("1 of 2 backends answer")),
             qPrintable(summary->text()));
    QVERIFY2(summary->text().contains(QStringLiteral("ejection")), qPrintable(summary->text()));
    QCOMPARE(page.model()->rows()[2].link, NodeLink::Connected);

    QVERIFY(m_pool.resume(0));
    // Back: it answers again; the proxy's recent ejection is still said.
    QVERIFY(waitForRows(&page, [](const std::vector<ClusterNodeRow>& rows) {
        return rows.size() == 3 && rows[1].link != NodeLink::Unreachable;
    }));
    QCOMPARE(page.model()->rows()[1].link, NodeLink::Failing);
    QVERIFY2(summary->text().contains(QStringLiteral("2 of 2 backends answer")),
             qPrintable(summary->text()));
}

void ConsoleOnTwemproxyTest::demoPoolEjectsABackendNowAndThen()
{
    DemoPool demo;
    const Status started = demo.start();
    QVERIFY2(started, qPrintable(started ? QString() : started.error().message));
    auto options = ConnectionOptions::fromUrl(demo.url());
    QVERIFY2(options, qPrintable(options ? QString() : options.error().message));
    QCOMPARE(options->twemproxy.backends.size(), size_t(DemoPool::kBackends));
    Client client(*options);
    client.open();
    QTRY_VERIFY_WITH_TIMEOUT(client.state() == ConnectionState::Connected, 10'000);

    demo.startEjections(200, 1'500);
    QTRY_VERIFY_WITH_TIMEOUT(demo.ejectionsStarted() > 0, 5'000);
    // Commands for keys on every backend while one is paused: the proxy ejects it.
    std::optional<qint64> ejections;
    QVERIFY(QTest::qWaitFor(
        [&] {
            for (int i = 0; i < 20; ++i)
                client.execute({"INCR", "demo:{" + QByteArray::number(i) + "}:n"}, this,
                               [](Result<Reply>) {});
            readTwemproxyStats(options->twemproxy.stats, options->twemproxy.pool, 1'000, this,
                               [&](Result<TwemproxyPoolStats> stats) {
                                   if (stats)
                                       ejections = stats->ejections;
                               });
            QTest::qWait(300);
            return ejections.value_or(0) > 0;
        },
        20'000));
    demo.stop();
    // Stopped: nothing answers on the proxy's port any more.
    QTcpSocket proxy;
    proxy.connectToHost(QStringLiteral("127.0.0.1"), demo.port());
    QVERIFY(!proxy.waitForConnected(1'000));
}

QTEST_MAIN(ConsoleOnTwemproxyTest)
#include "tst_ConsoleOnTwemproxy.moc"
