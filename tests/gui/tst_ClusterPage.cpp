// The Cluster page against a real Redis Cluster (three primaries with a replica each, from the
// fixture) offscreen: every node's row has the role, primary and slots the nodes themselves
// report; the user lookup names the slot CLUSTER KEYSLOT gives and the node that serves it; a
// killed node (the one the session was given) turns unreachable while the page keeps
// answering; and a standalone server gets the standalone text and its one node.

#include "tests/support/RedisCluster.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/KeySchema.h"
#include "ui/cluster/ClusterMonitor.h"
#include "ui/cluster/ClusterNodesModel.h"
#include "ui/cluster/ClusterPage.h"
#include "ui/common/Session.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QLabel>
#include <QLineEdit>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisCluster;
using tollgate::test::RedisServer;

namespace {

// The value of `field` in the text of an INFO-style reply ("role:master").
QByteArray infoField(const QByteArray& reply, const QByteArray& field)
{
    for (const QByteArray& line : reply.split('\n'))
        if (line.startsWith(QByteArray(field + ':')))
            return line.mid(field.size() + 1).trimmed();
    return {};
}

std::unique_ptr<Session> openSession(const QString& url)
{
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(url);
    auto session = std::make_unique<Session>(settings);
    session->open();
    return session;
}

} // namespace

class ClusterPageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void listsEveryNodeWithItsRoleAndSlots();
    void userLookupMatchesClusterKeyslot_data();
    void userLookupMatchesClusterKeyslot();
    void badUserIdIsExplained();
    void standaloneServerSaysSo();
    void slowNodeNeverPilesUp();
    void killedNodeTurnsUnreachable(); // last: it kills a node of the cluster

private:
    QString address(int node)
    {
        return QStringLiteral("127.0.0.1:%1").arg(m_cluster.node(node).port());
    }
    const ClusterNodeRow* row(const QString& address) const;
    QString label(const char* name) const;

    RedisCluster m_cluster;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<ClusterPage> m_page;
};

void ClusterPageTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 1));
    m_session = openSession(m_cluster.seedUrl());
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);
    m_page = std::make_unique<ClusterPage>(m_session.get());
    m_page->resize(1200, 600);
    m_page->show();
    QTRY_COMPARE_WITH_TIMEOUT(m_page->model()->rowCount(), m_cluster.size(), 15000);
}

void ClusterPageTest::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

const ClusterNodeRow* ClusterPageTest::row(const QString& address) const
{
    const int index = m_page->model()->rowOf(address);
    return index < 0 ? nullptr : &m_page->model()->rows()[size_t(index)];
}

QString ClusterPageTest::label(const char* name) const
{
    auto* found = m_page->findChild<QLabel*>(QLatin1String(name));
    return found ? found->text() : QStringLiteral("<no %1>").arg(QLatin1String(name));
}

void ClusterPageTest::listsEveryNodeWithItsRoleAndSlots()
{
    QAbstractItemModelTester tester(m_page->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy refreshed(m_page.get(), &ClusterPage::refreshed);
    m_page->refresh();
    QVERIFY(refreshed.wait(10000));

    int slots = 0;
    for (int i = 0; i < m_cluster.size(); ++i) {
        const ClusterNodeRow* node = row(address(i));
        QVERIFY2(node, qPrintable(address(i)));
        QCOMPARE(node->link, NodeLink::Connected);
        const QByteArray replication = m_cluster.node(i).command({"INFO", "replication"});
        const QByteArray id = m_cluster.node(i).command({"CLUSTER", "MYID"});
        QVERIFY2(id.contains(node->id) && node->id.size() == 40, node->id.constData());
        if (infoField(replication, "role") == "master") {
            QCOMPARE(node->role, QStringLiteral("primary"));
            QVERIFY(node->slotCount > 0);
            QVERIFY(node->primary.isEmpty());
            // Every slot of its ranges is served by this very node: it answers COUNTKEYSINSLOT
            // for it, where the others would answer -MOVED... and CLUSTER SHARDS agrees.
            const QByteArray shards = m_cluster.node(i).command({"CLUSTER", "SHARDS"});
            for (const auto& [first, last] : node->slotRanges) {
                QVERIFY(shards.contains(QByteArray(":" + QByteArray::number(first) +
                                                   "\r\n:" + QByteArray::number(last) + "\r\n")));
                QVERIFY(m_cluster.node(i)
                            .command({"CLUSTER", "COUNTKEYSINSLOT", QByteArray::number(first)})
                            .startsWith(':'));
            }
            slots += node->slotCount;
        } else {
            QCOMPARE(node->role, QStringLiteral("replica"));
            QCOMPARE(node->slotCount, 0);
            QCOMPARE(node->primary, QStringLiteral("127.0.0.1:") +
                                        QString::fromLatin1(infoField(replication, "master_port")));
        }
        QVERIFY(node->stats.connectedClients >= 1); // the page's own connection at least
    }
    QCOMPARE(slots, kClusterSlots);
    QVERIFY2(label("summaryLabel").startsWith(QStringLiteral("Cluster state ok")),
             qPrintable(label("summaryLabel")));
    QVERIFY2(label("summaryLabel").contains(QStringLiteral("3 primaries, 3 replicas")),
             qPrintable(label("summaryLabel")));
}

void ClusterPageTest::userLookupMatchesClusterKeyslot_data()
{
    QTest::addColumn<QByteArray>("user");
    QTest::newRow("plain") << QByteArray("alice");
    QTest::newRow("number") << QByteArray("42");
    QTest::newRow("colon") << QByteArray("a:b");
    QTest::newRow("braces") << QByteArray("{bob}");
    QTest::newRow("unicode") << QByteArray("Zo\xc3\xab \xf0\x9f\x99\x82");
    QTest::newRow("space") << QByteArray("with space");
}

void ClusterPageTest::userLookupMatchesClusterKeyslot()
{
    QFETCH(QByteArray, user);
    const QByteArray key = KeySchema().userBanKey(user);
    const QByteArray keyslot = m_cluster.node(0).command({"CLUSTER", "KEYSLOT", key});
    QVERIFY(keyslot.startsWith(':'));
    const QByteArray slot = keyslot.mid(1).trimmed();
    const int owner = m_cluster.nodeOfKey(key);
    QVERIFY(owner >= 0);

    m_page->findChild<QLineEdit*>(QStringLiteral("userLineEdit"))->setText(QString::fromUtf8(user));
    const QString text = label("userLocationLabel");
    QVERIFY2(
        text.contains(QStringLiteral("slot ") + QString::fromLatin1(slot) + QStringLiteral(" ")),
        qPrintable(text + QStringLiteral(" / CLUSTER KEYSLOT ") + QString::fromLatin1(slot)));
    QVERIFY2(text.contains(QStringLiteral("primary ") + address(owner)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("hash tag {") +
                           QString::fromUtf8(KeySchema::escape(user)) + QLatin1Char('}')),
             qPrintable(text));
    // The owner's row is the one selected.
    const QModelIndexList selected =
        m_page->findChild<QAbstractItemView*>(QStringLiteral("nodesTableView"))
            ->selectionModel()
            ->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.front().data().toString(), address(owner));
}

void ClusterPageTest::badUserIdIsExplained()
{
    auto* user = m_page->findChild<QLineEdit*>(QStringLiteral("userLineEdit"));
    user->setText(QString(KeySchema::kMaxIdBytes + 1, QLatin1Char('x')));
    QVERIFY2(label("userLocationLabel").contains(QStringLiteral("1024")),
             qPrintable(label("userLocationLabel")));
    user->clear();
    QVERIFY2(label("userLocationLabel").startsWith(QStringLiteral("Type a user id")),
             qPrintable(label("userLocationLabel")));
}

void ClusterPageTest::standaloneServerSaysSo()
{
    RedisServer standalone;
    TOLLGATE_REQUIRE(standalone, start());
    auto session = openSession(standalone.url());
    ClusterPage page(session.get());
    page.show();
    QTRY_COMPARE_WITH_TIMEOUT(page.model()->rowCount(), 1, 10000);
    const ClusterNodeRow& node = page.model()->rows().front();
    QCOMPARE(node.role, QStringLiteral("standalone"));
    QCOMPARE(node.address, QStringLiteral("127.0.0.1:%1").arg(standalone.port()));
    QCOMPARE(node.link, NodeLink::Connected);
    const QString summary = page.findChild<QLabel*>(QStringLiteral("summaryLabel"))->text();
    QVERIFY2(summary.startsWith(QStringLiteral("A standalone Redis server")), qPrintable(summary));
    page.findChild<QLineEdit*>(QStringLiteral("userLineEdit"))->setText(QStringLiteral("alice"));
    const QString where = page.findChild<QLabel*>(QStringLiteral("userLocationLabel"))->text();
    QVERIFY2(
        where.contains(QStringLiteral("standalone server keeps every key itself: ") + node.address),
        qPrintable(where));
}

void ClusterPageTest::slowNodeNeverPilesUp()
{
    // A replica that answers nothing for a while (CLIENT PAUSE ALL holds every command).
    int slow = -1;
    for (int i = 0; i < m_cluster.size() && slow < 0; ++i)
        if (row(address(i)) && row(address(i))->role == QLatin1String("replica"))
            slow = i;
    QVERIFY(slow >= 0);
    auto* monitor = m_page->findChild<ClusterMonitor*>();
    QVERIFY(monitor);
    QVERIFY(m_cluster.node(slow).command({"CONFIG", "RESETSTAT"}).startsWith("+OK"));
    QVERIFY(m_cluster.node(slow).command({"CLIENT", "PAUSE", "6000", "ALL"}).startsWith("+OK"));

    // Refreshes asked for while a sample waits on the slow node are skipped, not queued.
    int samples = 0;
    connect(monitor, &ClusterMonitor::sampled, this, [&samples] { ++samples; });
    connect(monitor, &ClusterMonitor::failed, this, [&samples] { ++samples; });
    int asked = 0;
    int skipped = 0;
    QTimer impatient;
    connect(&impatient, &QTimer::timeout, this, [&] {
        ++asked;
        skipped += monitor->refresh() ? 0 : 1;
    });
    impatient.start(50);
    // It turns unreachable once the page's deadline passes; the others stay connected.
    QTRY_VERIFY_WITH_TIMEOUT(row(address(slow))->link == NodeLink::Unreachable, 15000);
    QVERIFY2(
        row(address(slow))->linkDetail.contains(QStringLiteral("timeout"), Qt::CaseInsensitive),
        qPrintable(row(address(slow))->linkDetail));
    for (int i = 0; i < m_cluster.size(); ++i)
        if (i != slow)
            QCOMPARE(row(address(i))->link, NodeLink::Connected);
    QVERIFY(skipped > 0);

    // Back: it answers again, and it was sent one INFO per sample, whatever was asked.
    QTRY_COMPARE_WITH_TIMEOUT(row(address(slow))->link, NodeLink::Connected, 20000);
    impatient.stop();
    QTRY_VERIFY(!monitor->isSampling());
    const QByteArray stats = m_cluster.node(slow).command({"INFO", "commandstats"});
    const qint64 infos = infoField(stats, "cmdstat_info").split(',').value(0).mid(6).toLongLong();
    QVERIFY2(infos >= 1 && infos <= samples,
             qPrintable(QStringLiteral("%1 INFO for %2 samples, %3 refreshes asked")
                            .arg(infos)
                            .arg(samples)
                            .arg(asked)));
}

void ClusterPageTest::killedNodeTurnsUnreachable()
{
    // The seed itself: the page has to find the cluster through the other nodes.
    const QString seed = address(0);
    QVERIFY(row(seed));
    QCOMPARE(row(seed)->role, QStringLiteral("primary"));
    m_cluster.node(0).kill();

    // The event loop keeps running while the page samples a dead node: timers fire, and the
    // lookup answers at once from the last map.
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
    ticker.start(20);
    QTRY_VERIFY_WITH_TIMEOUT(row(seed) && row(seed)->link == NodeLink::Unreachable, 20000);
    QVERIFY(ticks > 0);
    QVERIFY2(!row(seed)->linkDetail.isEmpty(), "the tooltip says why");
    m_page->findChild<QLineEdit*>(QStringLiteral("userLineEdit"))->setText(QStringLiteral("alice"));
    QVERIFY(label("userLocationLabel").contains(QStringLiteral("slot ")));

    // Every other node is still listed and reached.
    for (int i = 1; i < m_cluster.size(); ++i) {
        QVERIFY2(row(address(i)), qPrintable(address(i)));
        QTRY_COMPARE_WITH_TIMEOUT(row(address(i))->link, NodeLink::Connected, 20000);
    }
    QTRY_VERIFY_WITH_TIMEOUT(label("summaryLabel").contains(QStringLiteral("1 node unreachable")),
                             20000);
}

QTEST_MAIN(ClusterPageTest)
#include "tst_ClusterPage.moc"
