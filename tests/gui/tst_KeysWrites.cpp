// The Keys page's writes are audited like every other: a deleted ban goes through unban.lua, a
// deleted counter through reset.lua (both in the user's own audit and on the events channel),
// anything else through delete.lua (global audit); repairs ask why and name the keys; a row
// repaired once can be repaired again when its key loses the TTL again.
#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/AuditLog.h"
#include "tollgate/Blocking.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "ui/common/Session.h"
#include "ui/keys/KeysModel.h"
#include "ui/keys/KeysPage.h"
#include "ui/keys/NoTtlModel.h"
#include "ui/keys/NoTtlPanel.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::answerReasonPrompt;
using tollgate::test::RedisServer;

class tst_KeysWrites : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void deletesGoThroughTheScripts();
    void repairAsksWhyNamesKeysAndRepairsAgain();

private:
    KeysPage* openPage();
    std::vector<AuditEntry> audit(const QByteArray& user);
    qint64 pttl(const QByteArray& key);
    static void select(QTableView* table, const QList<int>& rows);

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<KeysPage> m_page;
};

void tst_KeysWrites::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
}

void tst_KeysWrites::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
}

void tst_KeysWrites::cleanup()
{
    m_page.reset();
    m_session.reset();
}

KeysPage* tst_KeysWrites::openPage()
{
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    m_session = std::make_unique<Session>(settings);
    QSignalSpy checked(m_session.get(), &Session::permissionsChanged);
    m_session->open();
    [&] { QTRY_VERIFY(checked.size() >= 2); }(); // "checking", then the server's answer
    m_page = std::make_unique<KeysPage>(m_session.get());
    m_page->resize(1280, 800);
    m_page->show();
    return m_page.get();
}

std::vector<AuditEntry> tst_KeysWrites::audit(const QByteArray& user)
{
    auto entries = waitFor<std::vector<AuditEntry>>([&](Callback<std::vector<AuditEntry>> done) {
        m_session->audit().latest(user, 100, nullptr, done);
    });
    return entries ? *entries : std::vector<AuditEntry>{};
}

qint64 tst_KeysWrites::pttl(const QByteArray& key)
{
    const QByteArray reply = m_redis.command({"PTTL", key});
    return reply.startsWith(':') ? reply.mid(1).trimmed().toLongLong() : -100;
}

void tst_KeysWrites::select(QTableView* table, const QList<int>& rows)
{
    table->clearSelection();
    for (int row : rows)
        table->selectionModel()->select(table->model()->index(row, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
}

void tst_KeysWrites::deletesGoThroughTheScripts()
{
    KeysPage* page = openPage();
    BanRequest ban;
    ban.user = "alice";
    ban.action = "like";
    ban.actor = QStringLiteral("setup");
    ban.reason = QStringLiteral("spam");
    ban.durationMs = 3'600'000;
    QVERIFY(waitFor<BanInfo>([&](auto done) { m_session->moderation().ban(ban, nullptr, done); }));
    Policy policy;
    policy.action = "comment";
    policy.windows = {{10, 30'000}};
    QVERIFY(waitFor<HitResult>(
        [&](auto done) { m_session->limiter().hit(policy, "alice", 1, nullptr, done); }));
    QVERIFY(m_redis.command({"HSET", "tg:stats:comment", "1700000000:ok", "3"}) == ":1\r\n");
    const QByteArray banKey = "tg:{alice}:like:ban";
    const QByteArray stateKey = "tg:{alice}:comment:fw:30000";
    const QByteArray statsKey = "tg:stats:comment";

    QSignalSpy scanned(page, &KeysPage::scanFinished);
    page->startScan();
    QTRY_COMPARE(scanned.size(), 1);
    KeysModel* model = page->model();
    auto* table = page->findChild<QTableView*>(QStringLiteral("keysTableView"));
    select(table, {model->rowOf(banKey), model->rowOf(stateKey), model->rowOf(statsKey)});
    QSignalSpy events(m_session.get(), &Session::eventReceived);
    page->findChild<QPushButton*>(QStringLiteral("deleteButton"))->click();
    const QString question = answerReasonPrompt(page, QStringLiteral("cleanup after test"));
    for (const QByteArray& key : {banKey, stateKey, statsKey})
        QVERIFY2(question.contains(QString::fromUtf8(key)), qPrintable(question));

    QTRY_COMPARE(m_redis.command({"EXISTS", banKey, stateKey, statsKey}), QByteArray(":0\r\n"));
    QTRY_COMPARE(model->rowOf(statsKey), -1);
    // The user's own history says what happened to their ban and counter, and why.
    QStringList userEvents;
    for (const AuditEntry& entry : audit("alice"))
        if (entry.reason == QStringLiteral("cleanup after test") &&
            entry.actor == QStringLiteral("tester"))
            userEvents << entry.event;
    QVERIFY2(userEvents.contains(QStringLiteral("unban")), qPrintable(userEvents.join(u',')));
    QVERIFY2(userEvents.contains(QStringLiteral("reset")), qPrintable(userEvents.join(u',')));
    // Everything else is in the global stream, naming the key.
    bool statsDeletion = false;
    for (const AuditEntry& entry : audit({}))
        statsDeletion |= entry.event == QStringLiteral("delete_key") &&
                         entry.detail.contains(QString::fromUtf8(statsKey)) &&
                         entry.actor == QStringLiteral("tester");
    QVERIFY(statsDeletion);
    // Other consoles hear about it.
    QTRY_VERIFY(events.size() >= 3);
    QStringList published;
    for (const QList<QVariant>& event : std::as_const(events))
        published << event.at(0).toString();
    for (const char* name : {"unban", "reset", "delete"})
        QVERIFY2(published.contains(QLatin1String(name)), qPrintable(published.join(u',')));
}

void tst_KeysWrites::repairAsksWhyNamesKeysAndRepairsAgain()
{
    const QByteArray key = "tg:{alice}:comment:fw:30000";
    m_redis.command({"SET", key, "5"}); // a naive INCR without EXPIRE
    KeysPage* page = openPage();
    NoTtlPanel* panel = page->noTtlPanel();
    QSignalSpy finished(panel, &NoTtlPanel::finished);
    page->findChild<QPushButton*>(QStringLiteral("findNoTtlButton"))->click();
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(panel->model()->rowCount(), 1);
    auto* table = page->findChild<QTableView*>(QStringLiteral("noTtlTableView"));
    auto* repair = page->findChild<QPushButton*>(QStringLiteral("repairSelectedButton"));
    select(table, {0});

    // Cancelled: nothing is repaired.
    repair->click();
    QVERIFY(!answerReasonPrompt(page, {}).isEmpty());
    QTest::qWait(100);
    QCOMPARE(pttl(key), qint64(-1));

    for (int round = 1; round <= 2; ++round) {
        const QString reason = QStringLiteral("naive client, round %1").arg(round);
        QTRY_VERIFY(repair->isEnabled());
        repair->click();
        QVERIFY(answerReasonPrompt(page, reason).contains(QString::fromUtf8(key)));
        QTRY_COMPARE(finished.size(), 1 + round);
        QVERIFY(pttl(key) > 0);
        QCOMPARE(panel->model()->item(0).status, QStringLiteral("fixed"));
        const std::vector<AuditEntry> entries = audit({});
        QVERIFY(!entries.empty());
        QCOMPARE(entries.front().event, QStringLiteral("repair"));
        QCOMPARE(entries.front().reason, reason);
        QCOMPARE(entries.front().actor, QStringLiteral("tester"));
        QVERIFY2(entries.front().detail.contains(QString::fromUtf8(key)),
                 qPrintable(entries.front().detail));
        // The key loses its TTL again: the "fixed" row can be repaired again.
        m_redis.command({"PERSIST", key});
    }
}

QTEST_MAIN(tst_KeysWrites)
#include "tst_KeysWrites.moc"
