// The user detail's writes against a real redis-server: ban and unban from the UI take effect
// in the core and land in the audit log with the actor; invalid input writes nothing; reset
// asks first and deletes the counters; the write buttons follow the ACL permissions.
#include "tests/gui/UserDetailFixture.h"
#include "ui/common/Ask.h"
#include "ui/user/BanDialog.h"
#include "ui/user/ReasonDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>

using namespace tollgate;
using namespace tollgate::ui;

class tst_UserDetailWrites : public test::UserDetailFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { m_session.reset(); }
    void cleanup();
    void banFromUiDeniesHit();
    void banRefusedByTheServerSaysSo();
    void unbanFromUiIsAudited();
    void invalidBanInputWritesNothing_data();
    void invalidBanInputWritesNothing();
    void unbanWithoutReasonWritesNothing();
    void resetAsksFirst();
    void writeButtonsFollowPermissions();
    void unbanCanAlsoReset();
};

void tst_UserDetailWrites::cleanup()
{
    if (m_redis.command({"TYPE", "tg:audit"}) == "+string\r\n") {
        m_redis.command({"DEL", "tg:audit"});
        m_redis.command({"RENAME", "tg:audit-kept", "tg:audit"}); // the earlier tests' entries
    }
    Ask::setHook({});
    Ask::clearAsked();
}

void tst_UserDetailWrites::banFromUiDeniesHit()
{
    QVERIFY(hit("dave", "login").allowed);
    auto dialog = openDialog("dave");
    auto* banButton = dialog->findChild<QPushButton*>(QStringLiteral("banButton"));
    QVERIFY(banButton);
    QCOMPARE(banButton->property("tollgateWrite").toInt(), int(Session::Write::Ban));
    QTRY_VERIFY(banButton->isEnabled());
    QTest::mouseClick(banButton, Qt::LeftButton);

    auto* ban = waitForChild<BanDialog>(dialog.get(), QStringLiteral("banDialog"));
    QVERIFY(ban);
    auto* scope = ban->findChild<QComboBox*>(QStringLiteral("scopeComboBox"));
    scope->setCurrentIndex(scope->findData(QByteArray("login")));
    QVERIFY(scope->currentIndex() > 0);
    auto* duration = ban->findChild<QComboBox*>(QStringLiteral("durationComboBox"));
    duration->setEditText(QStringLiteral("45m"));
    auto* apply = ban->findChild<QPushButton*>(QStringLiteral("applyBanButton"));
    QVERIFY(!apply->isEnabled()); // no reason yet
    QTest::keyClicks(ban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("credential stuffing"));
    QVERIFY(apply->isEnabled());
    QTest::mouseClick(apply, Qt::LeftButton);

    auto* bans = dialog->findChild<QTableWidget*>(QStringLiteral("bansTableWidget"));
    QTRY_COMPARE(bans->rowCount(), 1);
    QCOMPARE(bans->item(0, 0)->text(), QStringLiteral("login"));
    QCOMPARE(bans->item(0, 1)->text(), QStringLiteral("credential stuffing"));
    QCOMPARE(bans->item(0, 2)->text(), QStringLiteral("operator-jane"));
    QCOMPARE(bans->item(0, 3)->text(), QStringLiteral("manual"));
    QTRY_VERIFY(bans->item(0, 4)->text().startsWith(QStringLiteral("in 44m")));

    const HitResult denied = hit("dave", "login");
    QVERIFY(!denied.allowed);
    QCOMPARE(denied.tier, Tier::Banned);
    QVERIFY(denied.retryAfterMs > 44 * 60'000);

    auto* audit = dialog->findChild<QTableWidget*>(QStringLiteral("auditTableWidget"));
    QTRY_VERIFY(audit->rowCount() >= 1);
    QCOMPARE(audit->item(0, 1)->text(), QStringLiteral("ban"));
    dialog->grab().save(QStringLiteral("/tmp/tollgate-user-detail.png"));

    // A second ban on the same scope would replace the first: it asks, and "no" keeps it.
    Ask::setHook([](const Ask::Question&) { return 0; });
    QTest::mouseClick(banButton, Qt::LeftButton);
    auto* again = waitForChild<BanDialog>(dialog.get(), QStringLiteral("banDialog"));
    QVERIFY(again);
    auto* againScope = again->findChild<QComboBox*>(QStringLiteral("scopeComboBox"));
    againScope->setCurrentIndex(againScope->findData(QByteArray("login")));
    again->findChild<QComboBox*>(QStringLiteral("durationComboBox"))
        ->setEditText(QStringLiteral("1m"));
    QTest::keyClicks(again->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("shorter"));
    QTest::mouseClick(again->findChild<QPushButton*>(QStringLiteral("applyBanButton")),
                      Qt::LeftButton);
    QCOMPARE(Ask::asked().size(), 1);
    QCOMPARE(Ask::asked().first().title, QStringLiteral("Replace ban"));
    QVERIFY(Ask::asked().first().text.contains(QStringLiteral("credential stuffing")));
    QVERIFY(hit("dave", "login").retryAfterMs > 44 * 60'000); // the 45 minute ban stands
    again->reject();
}

void tst_UserDetailWrites::banRefusedByTheServerSaysSo()
{
    // The ACL check passes, but the global audit stream is a string: ban.lua refuses before
    // writing anything, and the dialog says why instead of pretending.
    m_redis.command({"RENAME", "tg:audit", "tg:audit-kept"});
    QCOMPARE(m_redis.command({"SET", "tg:audit", "not a stream"}), QByteArray("+OK\r\n"));
    auto dialog = openDialog("ivan");
    auto* banButton = dialog->findChild<QPushButton*>(QStringLiteral("banButton"));
    QTRY_VERIFY(banButton->isEnabled());
    banButton->click();
    auto* ban = waitForChild<BanDialog>(dialog.get(), QStringLiteral("banDialog"));
    QVERIFY(ban);
    ban->findChild<QComboBox*>(QStringLiteral("durationComboBox"))
        ->setEditText(QStringLiteral("1h"));
    ban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"))->setText(QStringLiteral("spam"));
    auto* apply = ban->findChild<QPushButton*>(QStringLiteral("applyBanButton"));
    QVERIFY(apply->isEnabled());
    QTest::mouseClick(apply, Qt::LeftButton);
    auto* error = ban->findChild<QLabel*>(QStringLiteral("errorLabel"));
    QTRY_VERIFY(error->text().contains(QStringLiteral("tg:audit")));
    QVERIFY(ban->isVisible());
    QVERIFY(!Ask::asked().isEmpty());
    QCOMPARE(Ask::asked().last().title, QStringLiteral("Ban failed"));
    QVERIFY(!exists(m_session->schema().userBanKey("ivan")));
    QVERIFY(!exists(m_session->schema().userAuditKey("ivan")));
    QCOMPARE(m_redis.command({"GET", "tg:audit"}), QByteArray("$12\r\nnot a stream\r\n"));
}

void tst_UserDetailWrites::unbanFromUiIsAudited()
{
    auto dialog = openDialog("dave");
    auto* bans = dialog->findChild<QTableWidget*>(QStringLiteral("bansTableWidget"));
    QTRY_COMPARE(bans->rowCount(), 1);
    auto* unbanButton = dialog->findChild<QPushButton*>(QStringLiteral("unbanButton"));
    QCOMPARE(unbanButton->property("tollgateWrite").toInt(), int(Session::Write::Unban));
    unbanButton->click();
    auto* unban = waitForChild<ReasonDialog>(dialog.get(), QStringLiteral("unbanDialog"));
    QVERIFY(unban);
    auto* apply = unban->findChild<QPushButton*>(QStringLiteral("applyUnbanButton"));
    QVERIFY(!apply->isEnabled());
    QTest::keyClicks(unban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("appeal accepted"));
    apply->click();
    QTRY_COMPARE(bans->rowCount(), 0);
    QVERIFY(hit("dave", "login").allowed);

    std::optional<Result<std::vector<AuditEntry>>> entries;
    m_session->audit().latest({}, 50, this,
                              [&](Result<std::vector<AuditEntry>> r) { entries = r; });
    QTRY_VERIFY(entries.has_value());
    QVERIFY(entries->ok());
    bool sawBan = false, sawUnban = false;
    for (const AuditEntry& entry : entries->value()) {
        if (entry.user != "dave" || entry.actor != QStringLiteral("operator-jane"))
            continue;
        sawBan |= entry.event == QStringLiteral("ban") &&
                  entry.reason == QStringLiteral("credential stuffing");
        sawUnban |= entry.event == QStringLiteral("unban") &&
                    entry.reason == QStringLiteral("appeal accepted");
    }
    QVERIFY(sawBan);
    QVERIFY(sawUnban);
}

void tst_UserDetailWrites::invalidBanInputWritesNothing_data()
{
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("duration");
    QTest::addColumn<bool>("pastDate");
    QTest::newRow("empty reason") << QString() << QStringLiteral("1h") << false;
    QTest::newRow("blank reason") << QStringLiteral("   ") << QStringLiteral("1h") << false;
    QTest::newRow("absurd duration")
        << QStringLiteral("abuse") << QStringLiteral("99999999w") << false;
    QTest::newRow("no unit") << QStringLiteral("abuse") << QStringLiteral("30") << false;
    QTest::newRow("zero") << QStringLiteral("abuse") << QStringLiteral("0s") << false;
    QTest::newRow("date in the past") << QStringLiteral("abuse") << QString() << true;
}

void tst_UserDetailWrites::invalidBanInputWritesNothing()
{
    QFETCH(QString, reason);
    QFETCH(QString, duration);
    QFETCH(bool, pastDate);
    hit("frank", "login"); // the counter whose value must not change (denied after 5 rows)
    const QByteArray state =
        m_session->schema().stateKey("frank", "login", Algorithm::FixedWindow, 60'000);
    const QByteArray before = m_redis.command({"GET", state});
    auto dialog = openDialog("frank");
    dialog->findChild<QPushButton*>(QStringLiteral("banButton"))->click();
    auto* ban = waitForChild<BanDialog>(dialog.get(), QStringLiteral("banDialog"));
    QVERIFY(ban);
    if (pastDate) {
        ban->findChild<QRadioButton*>(QStringLiteral("untilRadioButton"))->setChecked(true);
        ban->findChild<QDateTimeEdit*>(QStringLiteral("untilDateTimeEdit"))
            ->setDateTime(QDateTime::currentDateTime().addDays(-1));
    } else {
        ban->findChild<QComboBox*>(QStringLiteral("durationComboBox"))->setEditText(duration);
    }
    // Typed first, so an empty reason counts as an input error (untouched, it is not shown).
    ban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"))->setText(QStringLiteral("x"));
    ban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"))->setText(reason);
    auto* apply = ban->findChild<QPushButton*>(QStringLiteral("applyBanButton"));
    auto* error = ban->findChild<QLabel*>(QStringLiteral("errorLabel"));
    QVERIFY(!apply->isEnabled());
    QVERIFY(!error->text().isEmpty());
    QTest::mouseClick(apply, Qt::LeftButton); // disabled: nothing happens
    QTest::keyClick(ban, Qt::Key_Return);     // nor through the default button
    QTest::qWait(200);
    QVERIFY(!exists(m_session->schema().userBanKey("frank")));
    QVERIFY(!exists(m_session->schema().actionBanKey("frank", "login")));
    QCOMPARE(m_redis.command({"XLEN", m_session->schema().userAuditKey("frank")}),
             QByteArray(":0\r\n"));
    QCOMPARE(m_redis.command({"GET", state}), before);
    if (QTest::currentDataTag() == QByteArrayLiteral("absurd duration"))
        dialog->grab().save(QStringLiteral("/tmp/tollgate-ban-invalid-detail.png")),
            ban->grab().save(QStringLiteral("/tmp/tollgate-ban-invalid.png"));
}

void tst_UserDetailWrites::unbanWithoutReasonWritesNothing()
{
    BanRequest request{"grace", {}, QStringLiteral("tester"), QStringLiteral("spam"), 600'000, 0};
    bool banned = false;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned);
    auto dialog = openDialog("grace");
    dialog->findChild<QPushButton*>(QStringLiteral("unbanButton"))->click();
    auto* unban = waitForChild<ReasonDialog>(dialog.get(), QStringLiteral("unbanDialog"));
    QVERIFY(unban);
    auto* apply = unban->findChild<QPushButton*>(QStringLiteral("applyUnbanButton"));
    QVERIFY(!apply->isEnabled());
    // Nothing typed yet: the disabled button says enough, no red text.
    QVERIFY(unban->findChild<QLabel*>(QStringLiteral("errorLabel"))->text().isEmpty());
    apply->click();
    QTest::qWait(200);
    QVERIFY(exists(m_session->schema().userBanKey("grace")));
}

void tst_UserDetailWrites::resetAsksFirst()
{
    for (int i = 0; i < 3; ++i)
        QVERIFY(hit("heidi", "login").allowed);
    const QByteArray minute =
        m_session->schema().stateKey("heidi", "login", Algorithm::FixedWindow, 60'000);
    const QByteArray hour =
        m_session->schema().stateKey("heidi", "login", Algorithm::FixedWindow, 3'600'000);
    QVERIFY(exists(minute) && exists(hour));
    auto dialog = openDialog("heidi");
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QTRY_COMPARE(actions->rowCount(), 1);

    auto* resetButton = dialog->findChild<QPushButton*>(QStringLiteral("resetButton"));
    QCOMPARE(resetButton->property("tollgateWrite").toInt(), int(Session::Write::Reset));
    int answer = 0; // first: "No"
    Ask::setHook([&answer](const Ask::Question&) { return answer; });
    resetButton->click();
    auto* reset = waitForChild<ReasonDialog>(dialog.get(), QStringLiteral("resetDialog"));
    QVERIFY(reset);
    reset->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"))
        ->setText(QStringLiteral("support ticket 42"));
    auto* apply = reset->findChild<QPushButton*>(QStringLiteral("applyResetButton"));
    apply->click();
    QCOMPARE(Ask::asked().size(), 1);
    QCOMPARE(Ask::asked().first().kind, Ask::Kind::Confirm);
    QVERIFY(Ask::asked().first().text.contains(QStringLiteral("heidi")));
    QVERIFY(Ask::asked().first().text.contains(QStringLiteral("every")));
    QTest::qWait(200);
    QVERIFY(exists(minute) && exists(hour)); // declined: nothing deleted

    answer = 1;
    apply->click();
    QTRY_VERIFY(!exists(minute) && !exists(hour));
    // The policy's row stays (its verdict still matters), back at zero.
    QTRY_COMPARE(actions->item(0, 1)->text(), QStringLiteral("0 / 5"));
    auto* message = dialog->findChild<QLabel*>(QStringLiteral("messageLabel"));
    QTRY_VERIFY(message->text().contains(QStringLiteral("2 counter")));
}

void tst_UserDetailWrites::writeButtonsFollowPermissions()
{
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.readOnly = true;
    settings.profileName = QStringLiteral("prod (viewer)");
    Session readOnly(settings);
    readOnly.open();
    QTRY_VERIFY(readOnly.state() == ConnectionState::Connected);
    UserDetailDialog dialog(&readOnly, "dave");
    for (const char* name : {"banButton", "unbanButton", "resetButton"}) {
        auto* button = dialog.findChild<QPushButton*>(QLatin1String(name));
        QVERIFY(button);
        QVERIFY(!button->isEnabled());
        QVERIFY(button->toolTip().contains(QStringLiteral("read-only")));
    }
}

void tst_UserDetailWrites::unbanCanAlsoReset()
{
    const QByteArray state =
        m_session->schema().stateKey("judy", "login", Algorithm::FixedWindow, 60'000);
    for (int i = 0; i < 3; ++i)
        QVERIFY(hit("judy", "login").allowed);
    BanRequest request{"judy", {}, QStringLiteral("tester"), QStringLiteral("spam"), 600'000, 0};
    std::optional<bool> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
    auto dialog = openDialog("judy");
    dialog->findChild<QPushButton*>(QStringLiteral("unbanButton"))->click();
    auto* unban = waitForChild<ReasonDialog>(dialog.get(), QStringLiteral("unbanDialog"));
    QVERIFY(unban);
    auto* then = unban->findChild<QComboBox*>(QStringLiteral("holdComboBox"));
    QVERIFY(then);
    QCOMPARE(then->currentIndex(), int(UnbanStep::LiftOnly)); // counters are kept unless asked
    then->setCurrentIndex(int(UnbanStep::ResetToo));
    QTest::keyClicks(unban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("appeal, fresh start"));
    unban->findChild<QPushButton*>(QStringLiteral("applyUnbanButton"))->click();
    QTRY_VERIFY(!exists(m_session->schema().userBanKey("judy")));
    QTRY_VERIFY(!exists(state));
    QVERIFY(hit("judy", "login").allowed);
}

QTEST_MAIN(tst_UserDetailWrites)
#include "tst_UserDetailWrites.moc"
