// The user detail dialog against a real redis-server: ban and unban from the UI take effect in
// the core and land in the audit log with the actor; invalid input writes nothing; reset asks
// first and deletes the counters.
#include "core/limits/Limiter.h"
#include "core/limits/PolicyStore.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/audit/AuditModel.h"
#include "ui/common/Ask.h"
#include "ui/common/DisplayText.h"
#include "ui/common/Session.h"
#include "ui/user/BanDialog.h"
#include "ui/user/ReasonDialog.h"
#include "ui/user/UserDetailDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QtTest>
#include <memory>

using namespace tollgate;
using namespace tollgate::ui;

class tst_UserDetail : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void cleanup();
    void showsActionsAndSafeHeader();
    void banFromUiDeniesHit();
    void banRefusedByTheServerSaysSo();
    void unbanFromUiIsAudited();
    void invalidBanInputWritesNothing_data();
    void invalidBanInputWritesNothing();
    void unbanWithoutReasonWritesNothing();
    void resetAsksFirst();
    void writeButtonsFollowPermissions();
    void verdictForEveryPolicy();
    void unbanCanAlsoReset();
    void refreshesItself();
    void staleWhileDisconnected();
    void sameEventReadsTheSameInBothAudits();

private:
    std::unique_ptr<UserDetailDialog> openDialog(const QByteArray& user);
    HitResult hit(const QByteArray& user, const QByteArray& action);
    bool exists(const QByteArray& key);
    template <typename T> T* waitForChild(QWidget* parent, const QString& name);

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    Policy m_login;
};

void tst_UserDetail::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("operator-jane");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);

    m_login.action = "login";
    m_login.windows = {{5, 60'000}, {20, 3'600'000}};
    bool saved = false;
    m_session->policies().save(m_login, QStringLiteral("tester"), this, [&](Result<qint64> r) {
        QVERIFY(r.ok());
        saved = true;
    });
    QTRY_VERIFY(saved);
}

void tst_UserDetail::cleanupTestCase()
{
    m_session.reset();
}

void tst_UserDetail::cleanup()
{
    if (m_redis.command({"TYPE", "tg:audit"}) == "+string\r\n") {
        m_redis.command({"DEL", "tg:audit"});
        m_redis.command({"RENAME", "tg:audit-kept", "tg:audit"}); // the earlier tests' entries
    }
    Ask::setHook({});
    Ask::clearAsked();
}

std::unique_ptr<UserDetailDialog> tst_UserDetail::openDialog(const QByteArray& user)
{
    auto dialog = std::make_unique<UserDetailDialog>(m_session.get(), user);
    QSignalSpy refreshed(dialog.get(), &UserDetailDialog::refreshed);
    dialog->resize(1280, 800);
    dialog->show();
    if (!refreshed.wait(5000) && refreshed.isEmpty())
        qWarning("the dialog did not finish loading");
    return dialog;
}

HitResult tst_UserDetail::hit(const QByteArray& user, const QByteArray& action)
{
    Policy policy = m_login;
    policy.action = action;
    std::optional<Result<HitResult>> result;
    m_session->limiter().hit(policy, user, 0, this, [&](Result<HitResult> r) { result = r; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 5000) || !*result)
        return {};
    return result->value();
}

bool tst_UserDetail::exists(const QByteArray& key)
{
    return m_redis.command({"EXISTS", key}) == ":1\r\n";
}

template <typename T> T* tst_UserDetail::waitForChild(QWidget* parent, const QString& name)
{
    T* child = nullptr;
    if (!QTest::qWaitFor([&] { return (child = parent->findChild<T*>(name)) != nullptr; }, 3000))
        return nullptr;
    return child;
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

void tst_UserDetail::banFromUiDeniesHit()
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
    again->findChild<QComboBox*>(QStringLiteral("durationComboBox"))->setEditText(QStringLiteral("1m"));
    QTest::keyClicks(again->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("shorter"));
    QTest::mouseClick(again->findChild<QPushButton*>(QStringLiteral("applyBanButton")), Qt::LeftButton);
    QCOMPARE(Ask::asked().size(), 1);
    QCOMPARE(Ask::asked().first().title, QStringLiteral("Replace ban"));
    QVERIFY(Ask::asked().first().text.contains(QStringLiteral("credential stuffing")));
    QVERIFY(hit("dave", "login").retryAfterMs > 44 * 60'000); // the 45 minute ban stands
    again->reject();
}

void tst_UserDetail::banRefusedByTheServerSaysSo()
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

void tst_UserDetail::unbanFromUiIsAudited()
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

void tst_UserDetail::invalidBanInputWritesNothing_data()
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

void tst_UserDetail::invalidBanInputWritesNothing()
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

void tst_UserDetail::unbanWithoutReasonWritesNothing()
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

void tst_UserDetail::resetAsksFirst()
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

void tst_UserDetail::writeButtonsFollowPermissions()
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

void tst_UserDetail::unbanCanAlsoReset()
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
    auto* alsoReset = unban->findChild<QCheckBox*>(QStringLiteral("alsoResetCheckBox"));
    QVERIFY(alsoReset);
    QVERIFY(!alsoReset->isChecked()); // counters are kept unless asked
    alsoReset->setChecked(true);
    QTest::keyClicks(unban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("appeal, fresh start"));
    unban->findChild<QPushButton*>(QStringLiteral("applyUnbanButton"))->click();
    QTRY_VERIFY(!exists(m_session->schema().userBanKey("judy")));
    QTRY_VERIFY(!exists(state));
    QVERIFY(hit("judy", "login").allowed);
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

QTEST_MAIN(tst_UserDetail)
#include "tst_UserDetail.moc"
