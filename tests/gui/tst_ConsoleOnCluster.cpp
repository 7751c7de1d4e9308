// The console's own plumbing given one node of a real three-primary Redis Cluster: the Session
// learns it is a cluster, the Subjects page lists users living on every primary (each once),
// keyspace notifications arrive from every primary (they are node-local), the dashboard's
// server figures are the sum over the primaries, the slow log is every primary's, the Keys page
// lists and deletes keys of every primary, the Policies page lists the {:} policies, and the
// user detail of a user on each primary shows its action, and the Lua page runs a script by
// hand on the node of its keys.

#include "core/scripts/Slowlog.h"
#include "tests/support/RedisCluster.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/dashboard/BanCounter.h"
#include "ui/dashboard/StatsSampler.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/common/Ask.h"
#include "ui/lua/LuaPage.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"
#include "ui/user/UserDetailDialog.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>
#include <map>
#include <set>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisCluster;

class tst_ConsoleOnCluster : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void subjectsFromEveryPrimary();
    void keyspaceEventsFromEveryPrimary();
    void serverFiguresSumThePrimaries();
    void bansOfEveryPrimaryCounted();
    void slowlogOfEveryPrimary();
    void keysPageOnEveryPrimary();
    void policiesPageOnCluster();
    void userDetailOnEveryPrimary();
    void luaPageRunsWhereTheKeysLive();

private:
    void hit(const QByteArray& user, int times);

    RedisCluster m_cluster;
    std::unique_ptr<Session> m_session;
    Policy m_policy;
    QList<QByteArray> m_users; // two on each primary
};

void tst_ConsoleOnCluster::initTestCase()
{
    TOLLGATE_REQUIRE(m_cluster, start(3, 0));
    for (int node = 0; node < m_cluster.size(); ++node) {
        m_cluster.node(node).command({"CONFIG", "SET", "notify-keyspace-events", "K$gx"});
        m_cluster.node(node).command({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
    }
    std::map<int, int> taken;
    for (int i = 0; m_users.size() < 6 && i < 10'000; ++i) {
        const QByteArray user = "player-" + QByteArray::number(i);
        const int node = m_cluster.nodeOfKey(KeySchema("tg").userBanKey(user));
        if (node >= 0 && taken[node]++ < 2)
            m_users << user;
    }
    QCOMPARE(m_users.size(), 6);

    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_cluster.seedUrl());
    settings.actor = QStringLiteral("tester");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);
    QTRY_VERIFY(m_session->client()->isModeKnown());
    QVERIFY(m_session->client()->isCluster());

    m_policy.action = "vote";
    m_policy.windows = {{10, 60'000}};
    bool saved = false;
    m_session->policies().save(m_policy, QStringLiteral("tester"), this, [&](Result<qint64> r) {
        QVERIFY2(r.ok(), qPrintable(r ? QString() : r.error().toString()));
        saved = true;
    });
    QTRY_VERIFY(saved);
}

void tst_ConsoleOnCluster::hit(const QByteArray& user, int times)
{
    int done = 0;
    for (int i = 0; i < times; ++i)
        m_session->limiter().hit(m_policy, user, 1, this, [&](Result<HitResult> r) {
            QVERIFY2(r.ok(), qPrintable(r ? QString() : r.error().toString()));
            ++done;
        });
    QTRY_COMPARE_WITH_TIMEOUT(done, times, 10'000);
}

void tst_ConsoleOnCluster::subjectsFromEveryPrimary()
{
    for (int i = 0; i < m_users.size(); ++i)
        hit(m_users[i], i + 1);
    SubjectsPage page(m_session.get());
    page.show();
    SubjectsModel* model = page.model();
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() == m_users.size(), 15'000);
    for (int i = 0; i < m_users.size(); ++i) {
        const int row = model->viewRowOf(m_users[i], "vote");
        QVERIFY2(row >= 0, m_users[i].constData());
        QCOMPARE(model->index(row, SubjectsModel::Count).data().toString(),
                 QStringLiteral("%1 / 10").arg(i + 1));
    }
}

void tst_ConsoleOnCluster::keyspaceEventsFromEveryPrimary()
{
    QTRY_VERIFY_WITH_TIMEOUT(m_session->hasKeyspaceNotifications(), 10'000);
    std::set<QByteArray> changed;
    QObject listening; // disconnects with this function's end, before `changed` goes
    connect(m_session.get(), &Session::keyspaceChanged, &listening,
            [&](const QByteArray& key, const QByteArray&) { changed.insert(key); });
    // Subscriptions on the primaries may still be on their way: hit until every user is heard.
    const bool heard = QTest::qWaitFor(
        [&] {
            for (const QByteArray& user : std::as_const(m_users))
                hit(user, 1);
            for (const QByteArray& user : std::as_const(m_users))
                if (!changed.count(KeySchema("tg").stateKey(user, "vote", Algorithm::FixedWindow,
                                                            60'000)))
                    return false;
            return true;
        },
        15'000);
    QVERIFY2(heard, qPrintable(QString::number(changed.size())));
}

void tst_ConsoleOnCluster::serverFiguresSumThePrimaries()
{
    StatsSampler sampler(m_session.get());
    sampler.setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(sampler.server().valid, 15'000);
    // At least this console's connections to each primary.
    QVERIFY2(sampler.server().connectedClients >= 3,
             qPrintable(QString::number(sampler.server().connectedClients)));
    qint64 memory = 0;
    for (int node = 0; node < m_cluster.size(); ++node) {
        const QByteArray info = m_cluster.node(node).command({"INFO", "memory"});
        const int at = info.indexOf("used_memory:") + 12;
        memory += info.mid(at, info.indexOf('\r', at) - at).toLongLong();
    }
    // The sum of three nodes, not one node's figure (memory moves a little between samples).
    QVERIFY2(sampler.server().usedMemory > memory / 2, qPrintable(QString::number(memory)));
}

void tst_ConsoleOnCluster::bansOfEveryPrimaryCounted()
{
    // Users on every primary banned from "vote": the dashboard's count of the ban keys scans
    // each primary, and a ban lifted there leaves the count through its event.
    for (const QByteArray& user : std::as_const(m_users)) {
        BanRequest request;
        request.user = user;
        request.action = "vote";
        request.actor = QStringLiteral("ops-test");
        request.reason = QStringLiteral("cluster count");
        request.durationMs = 3'600'000;
        std::optional<bool> banned;
        m_session->moderation().ban(request, this,
                                    [&banned](Result<BanInfo> r) { banned = r.ok(); });
        QTRY_VERIFY(banned.has_value());
        QVERIFY(*banned);
    }
    StatsSampler sampler(m_session.get());
    sampler.setActive(true);
    const auto votes = [&sampler] {
        return sampler.banCounter()->count("vote", QDateTime::currentMSecsSinceEpoch());
    };
    QTRY_VERIFY_WITH_TIMEOUT(sampler.banCounter()->hasPass(), 15'000);
    QCOMPARE(votes(), qint64(m_users.size()));
    std::optional<bool> lifted;
    m_session->moderation().unban(m_users.front(), "vote", QStringLiteral("ops-test"),
                                  QStringLiteral("cluster count"), this,
                                  [&lifted](Result<qint64> n) { lifted = n && *n == 1; });
    QTRY_VERIFY(lifted.has_value());
    QVERIFY(*lifted);
    QTRY_COMPARE(votes(), qint64(m_users.size() - 1));
}

void tst_ConsoleOnCluster::slowlogOfEveryPrimary()
{
    for (const QByteArray& user : std::as_const(m_users))
        hit(user, 1);
    std::optional<Result<std::vector<SlowlogEntry>>> entries;
    readSlowlog(m_session->client(), 500, this,
                [&](Result<std::vector<SlowlogEntry>> r) { entries = std::move(r); });
    QTRY_VERIFY_WITH_TIMEOUT(entries.has_value(), 10'000);
    QVERIFY(*entries);
    std::set<QByteArray> users;
    for (const SlowlogEntry& entry : **entries)
        for (const QByteArray& user : std::as_const(m_users)) {
            const QByteArray tag = '{' + user + '}';
            for (const QByteArray& argument : entry.arguments)
                if (argument.contains(tag))
                    users.insert(user);
        }
    QCOMPARE(users.size(), size_t(m_users.size()));
}

void tst_ConsoleOnCluster::keysPageOnEveryPrimary()
{
    KeysPage page(m_session.get());
    QSignalSpy finished(&page, &KeysPage::scanFinished);
    page.startScan();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 15'000);
    const KeySchema schema("tg");
    for (const QByteArray& user : std::as_const(m_users))
        QVERIFY2(page.model()->rowOf(schema.stateKey(user, "vote", Algorithm::FixedWindow,
                                                     60'000)) >= 0,
                 user.constData());

    // A delete from the page lands on the key's node, audited in the user's own stream.
    const QByteArray user = m_users.last();
    const QByteArray key = schema.stateKey(user, "vote", Algorithm::FixedWindow, 60'000);
    const int node = m_cluster.nodeOfKey(key);
    page.deleteKeys({key}, QStringLiteral("cluster test"));
    QTRY_VERIFY_WITH_TIMEOUT(m_cluster.node(node).command({"EXISTS", key}) == ":0\r\n", 10'000);
    QVERIFY(m_cluster.node(node)
                .command({"XREVRANGE", schema.userAuditKey(user), "+", "-", "COUNT", "1"})
                .contains("cluster test"));
}

void tst_ConsoleOnCluster::policiesPageOnCluster()
{
    PoliciesPage page(m_session.get());
    QSignalSpy reloaded(&page, &PoliciesPage::reloaded);
    page.reload();
    QTRY_VERIFY_WITH_TIMEOUT(!reloaded.isEmpty(), 10'000);
    QVERIFY(page.model()->rowOf("vote") >= 0);
}

void tst_ConsoleOnCluster::userDetailOnEveryPrimary()
{
    // The dialog of a user on each primary: its action with the count, and its history.
    for (int i = 0; i < 3; ++i) {
        const QByteArray user = m_users[2 * i];
        UserDetailDialog dialog(m_session.get(), user);
        QSignalSpy refreshed(&dialog, &UserDetailDialog::refreshed);
        dialog.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), 10'000);
        auto* actions = dialog.findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
        QVERIFY(actions);
        QTRY_VERIFY_WITH_TIMEOUT(actions->rowCount() > 0, 10'000);
        QCOMPARE(actions->item(0, 0)->text(), QStringLiteral("vote"));
        QVERIFY2(actions->item(0, 1)->text().endsWith(QStringLiteral(" / 10")),
                 qPrintable(actions->item(0, 1)->text()));
        auto* error = dialog.findChild<QLabel*>(QStringLiteral("errorLabel"));
        QVERIFY2(!error || error->text().isEmpty(), qPrintable(error ? error->text() : QString()));
    }
}

void tst_ConsoleOnCluster::luaPageRunsWhereTheKeysLive()
{
    // ban.lua run by hand from the form, for a user on each primary; on a cluster the global
    // mirror is the user's own stream again (KEYS[3] = KEYS[2]).
    Ask::setHook([](const Ask::Question&) { return 1; });
    const KeySchema schema("tg");
    for (int i = 0; i < 3; ++i) {
        const QByteArray user = m_users[2 * i + 1];
        LuaPage page(m_session.get());
        page.selectScript(QStringLiteral("ban"));
        auto field = [&page](const char* name) {
            auto* edit = page.findChild<QLineEdit*>(QLatin1String(name));
            if (!edit)
                qFatal("the Lua page has no field %s", name);
            return edit;
        };
        const QString audit = QString::fromUtf8(schema.userAuditKey(user));
        field("keys1LineEdit")->setText(QString::fromUtf8(schema.userBanKey(user)));
        field("keys2LineEdit")->setText(audit);
        field("keys3LineEdit")->setText(audit);
        field("argv1LineEdit")->setText(QString::fromUtf8(user));
        field("argv4LineEdit")->setText(QStringLiteral("by hand on a cluster"));
        field("argv5LineEdit")->setText(QStringLiteral("60000"));
        field("argv6LineEdit")->setText(QStringLiteral("0"));
        QSignalSpy shown(&page, &LuaPage::replyShown);
        page.run();
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 10'000);
        const QString reply =
            page.findChild<QPlainTextEdit*>(QStringLiteral("replyPlainTextEdit"))->toPlainText();
        QVERIFY2(!reply.startsWith(QStringLiteral("Error")), qPrintable(reply));
        const int node = m_cluster.nodeOfKey(schema.userBanKey(user));
        QCOMPARE(m_cluster.node(node).command({"EXISTS", schema.userBanKey(user)}),
                 QByteArray(":1\r\n"));
    }
    Ask::setHook({});
}

QTEST_MAIN(tst_ConsoleOnCluster)
#include "tst_ConsoleOnCluster.moc"
