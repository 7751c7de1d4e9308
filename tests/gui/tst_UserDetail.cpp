// The user detail dialog against a real redis-server, as support reads it: actions with their
// counters and verdicts (also for policies without keys and under a user-wide ban), bans with
// when they started, the audit history worded like the global log, refreshing by itself
// without scanning, a Refresh that finds actions created after opening, and a stale view
// while disconnected.
#include "tests/gui/UserDetailFixture.h"
#include "ui/audit/AuditModel.h"
#include "ui/common/DisplayText.h"

#include <QDateTime>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>

using namespace tollgate;
using namespace tollgate::ui;

class tst_UserDetail : public test::UserDetailFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { m_session.reset(); }
    void showsActionsAndSafeHeader();
    void verdictForEveryPolicy();
    void shadowPolicyVerdictSaysItAllows();
    void refreshesItself();
    void staleWhileDisconnected();
    void sameEventReadsTheSameInBothAudits();
    void pollsWithoutScanning();
    void refreshFindsActionsCreatedAfterOpening();

private:
    int rowOf(QTableWidget* table, const QString& action) const;
    qint64 scanCalls();
};

int tst_UserDetail::rowOf(QTableWidget* table, const QString& action) const
{
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0) && table->item(r, 0)->text() == action)
            return r;
    return -1;
}

// SCAN calls the server ran so far (INFO commandstats).
qint64 tst_UserDetail::scanCalls()
{
    const QByteArray info = m_redis.command({"INFO", "commandstats"});
    const int at = info.indexOf("cmdstat_scan:calls=");
    if (at < 0)
        return 0;
    const int from = at + int(qstrlen("cmdstat_scan:calls="));
    return info.mid(from, info.indexOf(',', from) - from).toLongLong();
}

void tst_UserDetail::showsActionsAndSafeHeader()
{
    const QByteArray user("eve\nline2\xff");
    QVERIFY(hit(user, "login").allowed);
    QVERIFY(hit(user, "login").allowed);
    auto dialog = openDialog(user);
    auto* header = dialog->findChild<QLabel*>(QStringLiteral("userLabel"));
    QVERIFY(header);
    QCOMPARE(header->text(), QStringLiteral("eve\\nline2\\xff"));
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QVERIFY(actions);
    QTRY_COMPARE(actions->rowCount(), 1);
    QCOMPARE(actions->item(0, 0)->text(), QStringLiteral("login"));
    QCOMPARE(actions->item(0, 1)->text(), QStringLiteral("2 / 5"));
    QCOMPARE(actions->item(0, 2)->text(), QStringLiteral("3"));
    QVERIFY(actions->item(0, 4)->text().contains(QStringLiteral("5 per")));
    const QString reset = actions->item(0, 3)->text();
    QTRY_VERIFY(actions->item(0, 3)->text() != reset); // counts down without a reload
    dialog->grab().save(QStringLiteral("/tmp/tollgate-user-actions.png"));
}

// A shadow policy at its limit refuses nobody: the verdict says so, with the enforced answer.
void tst_UserDetail::shadowPolicyVerdictSaysItAllows()
{
    Policy probe = m_login;
    probe.action = "probe";
    probe.windows = {{1, 60'000}};
    probe.shadow = true;
    bool saved = false;
    m_session->policies().save(probe, QStringLiteral("tester"), this,
                               [&](Result<qint64> r) { saved = r.ok(); });
    QTRY_VERIFY(saved);
    std::optional<bool> allowed;
    m_session->limiter().hit(probe, "jo", 0, this,
                             [&](Result<HitResult> r) { allowed = r && r->allowed && r->shadow; });
    QTRY_VERIFY(allowed.has_value() && *allowed);
    auto dialog = openDialog("jo");
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QTRY_VERIFY(rowOf(actions, QStringLiteral("probe")) >= 0);
    QTRY_VERIFY2(actions->item(rowOf(actions, QStringLiteral("probe")), 5)
                     ->text()
                     .startsWith(QStringLiteral("yes, shadow policy (enforced: no: over")),
                 qPrintable(actions->item(rowOf(actions, QStringLiteral("probe")), 5)->text()));
    m_session->policies().remove("probe", 1, QStringLiteral("tester"), this,
                                 [&](Result<Unit> r) { saved = !r.ok(); });
    QTRY_VERIFY(!saved);
}

void tst_UserDetail::verdictForEveryPolicy()
{
    Policy like = m_login;
    like.action = "like";
    like.windows = {{1, 60'000}};
    bool saved = false;
    m_session->policies().save(like, QStringLiteral("tester"), this,
                               [&](Result<qint64> r) { saved = r.ok(); });
    QTRY_VERIFY(saved);

    // An id with no keys at all: every policy still has a row with its verdict.
    auto dialog = openDialog("ivan");
    auto* summary = dialog->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QVERIFY2(summary->text().contains(QStringLiteral("No keys for this id")),
             qPrintable(summary->text()));
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    auto rowOf = [actions](const QString& action) {
        for (int r = 0; r < actions->rowCount(); ++r)
            if (actions->item(r, 0)->text() == action)
                return r;
        return -1;
    };
    QTRY_VERIFY(rowOf(QStringLiteral("like")) >= 0 && rowOf(QStringLiteral("login")) >= 0);
    QCOMPARE(actions->item(rowOf(QStringLiteral("like")), 5)->text(), QStringLiteral("yes"));
    QCOMPARE(actions->item(rowOf(QStringLiteral("like")), 1)->text(), QStringLiteral("0 / 1"));

    // At its limit: the next like would be denied.
    Policy stored = like;
    std::optional<bool> counted;
    m_session->limiter().hit(stored, "ivan", 0, this,
                             [&](Result<HitResult> r) { counted = r.ok(); });
    QTRY_VERIFY(counted.has_value());
    dialog->refresh();
    QTRY_VERIFY2(actions->item(rowOf(QStringLiteral("like")), 5)
                     ->text()
                     .startsWith(QStringLiteral("no: over")),
                 qPrintable(actions->item(rowOf(QStringLiteral("like")), 5)->text()));
    QCOMPARE(actions->item(rowOf(QStringLiteral("login")), 5)->text(), QStringLiteral("yes"));

    // A user-wide ban: every action says so, with when the ban started.
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    BanRequest request{"ivan", {}, QStringLiteral("tester"), QStringLiteral("fraud"), 3'600'000, 0};
    std::optional<bool> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
    dialog->refresh();
    QTRY_VERIFY(actions->item(rowOf(QStringLiteral("login")), 5)
                    ->text()
                    .startsWith(QStringLiteral("no: banned")));
    QVERIFY(actions->item(rowOf(QStringLiteral("like")), 5)
                ->text()
                .startsWith(QStringLiteral("no: banned")));
    auto* bans = dialog->findChild<QTableWidget*>(QStringLiteral("bansTableWidget"));
    QTRY_COMPARE(bans->rowCount(), 1);
    QCOMPARE(bans->horizontalHeaderItem(5)->text(), QStringLiteral("Started"));
    const QByteArray created = m_redis.command(
        {"HGET", m_session->schema().userBanKey("ivan"), "created_ms"}); // "$13\r\n<ms>\r\n"
    const qint64 createdMs = created.split('\n').value(1).trimmed().toLongLong();
    QVERIFY(createdMs >= before - 1000);
    QCOMPARE(bans->item(0, 5)->text(), formatTime(createdMs));
    dialog->grab().save(QStringLiteral("/tmp/tollgate-user-verdicts.png"));
}

void tst_UserDetail::refreshesItself()
{
    QVERIFY(hit("kate", "login").allowed);
    auto dialog = openDialog("kate");
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    int row = -1;
    for (int r = 0; r < actions->rowCount(); ++r)
        if (actions->item(r, 0)->text() == QStringLiteral("login"))
            row = r;
    QVERIFY(row >= 0);
    QCOMPARE(actions->item(row, 1)->text(), QStringLiteral("1 / 5"));
    // Hits publish no event: only the dialog's own polling can notice them.
    QVERIFY(hit("kate", "login").allowed);
    QVERIFY(hit("kate", "login").allowed);
    QTRY_COMPARE_WITH_TIMEOUT(actions->item(row, 1)->text(), QStringLiteral("3 / 5"), 10000);
}

void tst_UserDetail::staleWhileDisconnected()
{
    test::RedisServer server;
    TOLLGATE_REQUIRE(server, start());
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(server.url());
    settings.connection.reconnectMaxDelay = std::chrono::milliseconds(300);
    settings.actor = QStringLiteral("operator-jane");
    Session session(settings);
    session.open();
    QTRY_VERIFY(session.state() == ConnectionState::Connected);
    bool saved = false;
    session.policies().save(m_login, QStringLiteral("tester"), this,
                            [&](Result<qint64> r) { saved = r.ok(); });
    QTRY_VERIFY(saved);
    std::optional<bool> counted;
    session.limiter().hit(m_login, "leo", 0, this, [&](Result<HitResult> r) { counted = r.ok(); });
    QTRY_VERIFY(counted.has_value() && *counted);

    UserDetailDialog dialog(&session, "leo");
    QSignalSpy refreshed(&dialog, &UserDetailDialog::refreshed);
    dialog.show();
    QVERIFY(refreshed.wait(5000));
    auto* actions = dialog.findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    auto* summary = dialog.findChild<QLabel*>(QStringLiteral("summaryLabel"));
    auto* ban = dialog.findChild<QPushButton*>(QStringLiteral("banButton"));
    QTRY_COMPARE(actions->rowCount(), 1);
    QCOMPARE(actions->item(0, 1)->text(), QStringLiteral("1 / 5"));
    QTRY_VERIFY(ban->isEnabled());

    server.kill();
    QTRY_VERIFY_WITH_TIMEOUT(summary->text().startsWith(QStringLiteral("Not connected")), 10000);
    QVERIFY2(!summary->text().contains(QStringLiteral("0 actions")), qPrintable(summary->text()));
    QVERIFY(!ban->isEnabled());
    QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("unbanButton"))->isEnabled());
    QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("resetButton"))->isEnabled());
    dialog.refresh(); // a refresh while disconnected keeps what was shown
    QCOMPARE(actions->rowCount(), 1);
    QCOMPARE(actions->item(0, 1)->text(), QStringLiteral("1 / 5"));
    QVERIFY(summary->text().startsWith(QStringLiteral("Not connected")));
}

void tst_UserDetail::sameEventReadsTheSameInBothAudits()
{
    // A ban and an unban, each in both streams.
    BanRequest request{"olga",  "login", QStringLiteral("tester"), QStringLiteral("abuse"),
                       600'000, 0};
    std::optional<bool> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
    std::optional<bool> lifted;
    m_session->moderation().unban("olga", {}, QStringLiteral("tester"), QStringLiteral("appeal"),
                                  this, [&](Result<qint64> r) { lifted = r.ok(); });
    QTRY_VERIFY(lifted.has_value() && *lifted);

    auto dialog = openDialog("olga");
    auto* history = dialog->findChild<QTableWidget*>(QStringLiteral("auditTableWidget"));
    QTRY_VERIFY(history->rowCount() >= 2);
    AuditModel global;
    std::optional<Result<std::vector<AuditEntry>>> entries;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            entries.reset();
            m_session->audit().latest({}, 200, this,
                                      [&](Result<std::vector<AuditEntry>> r) { entries = r; });
            if (!QTest::qWaitFor([&] { return entries.has_value(); }, 3000) || !*entries)
                return false;
            int olga = 0;
            for (const AuditEntry& entry : entries->value())
                olga += entry.user == "olga" ? 1 : 0;
            return olga >= 2;
        }(),
        10000);
    global.setEntries(entries->value());
    int compared = 0;
    for (int r = 0; r < history->rowCount(); ++r) {
        const QString event = history->item(r, 1)->text();
        const QString action = history->item(r, 2)->text();
        for (int g = 0; g < global.rowCount(); ++g) {
            auto cell = [&](int column) { return global.index(g, column).data().toString(); };
            if (cell(AuditModel::User) != QStringLiteral("olga") ||
                cell(AuditModel::Event) != event || cell(AuditModel::Action) != action)
                continue;
            QCOMPARE(history->item(r, 4)->text(), cell(AuditModel::Reason));
            QCOMPARE(history->item(r, 5)->text(), cell(AuditModel::Until));
            QCOMPARE(history->item(r, 3)->text(), cell(AuditModel::Actor));
            ++compared;
        }
    }
    QVERIFY2(compared >= 2, qPrintable(QString::number(compared)));
}

void tst_UserDetail::pollsWithoutScanning()
{
    QVERIFY(hit("mike", "login").allowed);
    auto dialog = openDialog("mike");
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QTRY_VERIFY(rowOf(actions, QStringLiteral("login")) >= 0);
    // The 2 s refresh peeks what the schema addresses; the user's prefix is not scanned again.
    const qint64 before = scanCalls();
    QSignalSpy refreshed(dialog.get(), &UserDetailDialog::refreshed);
    QVERIFY(hit("mike", "login").allowed);
    QTRY_VERIFY_WITH_TIMEOUT(refreshed.count() >= 2, 10000);
    QCOMPARE(actions->item(rowOf(actions, QStringLiteral("login")), 1)->text(),
             QStringLiteral("2 / 5"));
    QCOMPARE(scanCalls(), before);
}

void tst_UserDetail::refreshFindsActionsCreatedAfterOpening()
{
    QVERIFY(hit("nina", "login").allowed);
    auto dialog = openDialog("nina");
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QTRY_VERIFY(rowOf(actions, QStringLiteral("login")) >= 0);
    // A foreign writer's action (no policy) appears after the dialog opened: the polls do not
    // scan for it, Refresh does.
    const QByteArray legacy =
        m_session->schema().stateKey("nina", "legacy", Algorithm::FixedWindow, 60'000);
    QCOMPARE(m_redis.command({"SET", legacy, "3", "PX", "60000"}), QByteArray("+OK\r\n"));
    QSignalSpy refreshed(dialog.get(), &UserDetailDialog::refreshed);
    QTRY_VERIFY_WITH_TIMEOUT(refreshed.count() >= 1, 10000);
    QCOMPARE(rowOf(actions, QStringLiteral("legacy")), -1);
    const qint64 before = scanCalls();
    dialog->findChild<QPushButton*>(QStringLiteral("refreshButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(rowOf(actions, QStringLiteral("legacy")) >= 0, 10000);
    QVERIFY(scanCalls() > before);
    QCOMPARE(actions->item(rowOf(actions, QStringLiteral("legacy")), 5)->text(),
             QStringLiteral("no policy: not limited"));
}

QTEST_MAIN(tst_UserDetail)
#include "tst_UserDetail.moc"
