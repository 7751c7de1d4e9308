// An unban that cannot hold: a user still at the limit is denied (and banned again) on the
// next hit after an unban that keeps the counters, and a user who keeps sending (the demo's
// scraper: 35 hits/s against 20 a minute) fills even reset counters within a second. The
// unban dialog says so before support confirms, with the usage against the limit and the
// refused rate the statistics count, and picks the step that holds (reset, give more,
// exempt). The detail says when a user is banned again; Give more… on a banned user says the
// ban stays and offers to lift it. A banned row has nothing remaining until its ban ends.
#include "core/limiter/HitStats.h"
#include "tests/gui/UserDetailFixture.h"
#include "ui/user/OverrideDialog.h"
#include "ui/user/ReasonDialog.h"
#include "ui/user/RefusedRate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>

using namespace tollgate;
using namespace tollgate::ui;

class UnbanHoldTest : public test::UserDetailFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { m_session.reset(); }
    void unbanAtTheLimitWarnsAndOffersReset();
    void unbanWithRoomLeftSaysItHolds();
    void unbanIsOffWithoutABan();
    void persistentAbuserUnbanSaysItWillNotHold();
    void bannedAgainIsSaidNotLifted();
    void giveMoreOnABannedUserSaysTheBanStays();

private:
    /// The demo's view policy: 20 a minute, a ban of an hour for whoever goes past it.
    Policy viewPolicy() const;
    void saveViewPolicy(); // once: later calls find it saved
    bool hitView(const QByteArray& user);
    /// `user` past the view limit until banned automatically.
    void floodUntilBanned(const QByteArray& user);
    /// What a client recording statistics writes for `perSecond` hits of view refused under a
    /// ban over the last 10 s; waits until that second is whole (the rate reads whole seconds).
    void recordRefused(int perSecond);
    QString cell(UserDetailDialog* dialog, const QByteArray& action, int column);
    void typeReasonAndApply(QDialog* dialog, const QString& button);
    ReasonDialog* openUnban(UserDetailDialog* dialog);
    void ban(const QByteArray& user);
    /// `hits` login hits of `user`, a ban of login, then the user's detail.
    std::unique_ptr<UserDetailDialog> bannedAfter(const QByteArray& user, int hits);
};

void UnbanHoldTest::ban(const QByteArray& user)
{
    BanRequest request{user,    "login", QStringLiteral("tester"), QStringLiteral("abuse"),
                       600'000, 0};
    std::optional<bool> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
}

std::unique_ptr<UserDetailDialog> UnbanHoldTest::bannedAfter(const QByteArray& user, int hits)
{
    for (int i = 0; i < hits; ++i)
        if (!hit(user, "login").allowed)
            qWarning("a hit was denied");
    ban(user);
    return openDialog(user);
}

ReasonDialog* UnbanHoldTest::openUnban(UserDetailDialog* dialog)
{
    auto* bans = dialog->findChild<QTableWidget*>(QStringLiteral("bansTableWidget"));
    if (!QTest::qWaitFor([&] { return bans->rowCount() == 1; }, 5000))
        return nullptr;
    auto* unban = dialog->findChild<QPushButton*>(QStringLiteral("unbanButton"));
    if (!unban->isEnabled())
        return nullptr;
    unban->click();
    return waitForChild<ReasonDialog>(dialog, QStringLiteral("unbanDialog"));
}

Policy UnbanHoldTest::viewPolicy() const
{
    Policy view;
    view.action = "view";
    view.windows = {{20, 60'000}};
    view.banMs = 3'600'000;
    return view;
}

void UnbanHoldTest::saveViewPolicy()
{
    std::optional<bool> saved;
    m_session->policies().save(viewPolicy(), QStringLiteral("tester"), this, [&](Result<qint64> r) {
        saved = r.ok() || r.error().kind == ErrorKind::Conflict;
    });
    QTRY_VERIFY(saved.has_value() && *saved);
}

bool UnbanHoldTest::hitView(const QByteArray& user)
{
    std::optional<bool> allowed;
    m_session->limiter().hit(viewPolicy(), user, 0, this,
                             [&](Result<HitResult> r) { allowed = r && r->allowed; });
    return QTest::qWaitFor([&] { return allowed.has_value(); }, 5000) && *allowed;
}

void UnbanHoldTest::floodUntilBanned(const QByteArray& user)
{
    for (int i = 0; i < 21; ++i)
        hitView(user);
}

void UnbanHoldTest::recordRefused(int perSecond)
{
    auto stats = HitStats::of(m_session->client(), m_session->schema());
    for (int i = 0; i < perSecond * kRefusedRateSeconds; ++i)
        stats->record("view", Tier::Banned, 1);
    const quint64 before = stats->flushCount();
    stats->flush();
    QTRY_VERIFY(stats->flushCount() > before);
    QTest::qWait(1100); // the second it landed in is whole now
}

QString UnbanHoldTest::cell(UserDetailDialog* dialog, const QByteArray& action, int column)
{
    auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, 0)->text() == QString::fromUtf8(action))
            return table->item(r, column) ? table->item(r, column)->text() : QString();
    return QStringLiteral("(no row %1)").arg(QString::fromUtf8(action));
}

void UnbanHoldTest::typeReasonAndApply(QDialog* dialog, const QString& button)
{
    QTest::keyClicks(dialog->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("appeal"));
    dialog->findChild<QPushButton*>(button)->click();
}

void UnbanHoldTest::unbanAtTheLimitWarnsAndOffersReset()
{
    auto dialog = bannedAfter("mallory", 5); // the login policy: 5 per minute
    ReasonDialog* unban = openUnban(dialog.get());
    QVERIFY(unban);
    auto* warning = unban->findChild<QLabel*>(QStringLiteral("holdWarningLabel"));
    QVERIFY(warning);
    QVERIFY(warning->isVisibleTo(unban));
    QVERIFY2(warning->text().contains(QStringLiteral("login: 5 of 5 per 1m used")),
             qPrintable(warning->text()));
    QVERIFY2(warning->text().contains(QStringLiteral("The unban alone would not hold: login: "
                                                     "the next hit is denied again")),
             qPrintable(warning->text()));
    QVERIFY(warning->text().contains(QStringLiteral("Holds: the user starts from zero.")));
    auto* then = unban->findChild<QComboBox*>(QStringLiteral("holdComboBox"));
    QCOMPARE(then->currentIndex(), int(UnbanStep::ResetToo)); // what would hold is picked

    // Confirmed as offered: the unban holds, the next hit passes.
    QTest::keyClicks(unban->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("appeal"));
    unban->findChild<QPushButton*>(QStringLiteral("applyUnbanButton"))->click();
    QTRY_VERIFY(!exists(m_session->schema().actionBanKey("mallory", "login")));
    QTRY_VERIFY(!exists( // the reset runs once the unban is done
        m_session->schema().stateKey("mallory", "login", Algorithm::FixedWindow, 60'000)));
    QVERIFY(hit("mallory", "login").allowed);
}

void UnbanHoldTest::unbanWithRoomLeftSaysItHolds()
{
    auto dialog = bannedAfter("nina", 2);
    ReasonDialog* unban = openUnban(dialog.get());
    QVERIFY(unban);
    auto* warning = unban->findChild<QLabel*>(QStringLiteral("holdWarningLabel"));
    QVERIFY2(warning->text().contains(QStringLiteral("login: 2 of 5 per 1m used.")),
             qPrintable(warning->text()));
    QVERIFY(warning->text().contains(QStringLiteral("Holds: the next hit passes.")));
    QCOMPARE(unban->findChild<QComboBox*>(QStringLiteral("holdComboBox"))->currentIndex(),
             int(UnbanStep::LiftOnly));
    unban->reject();
}

void UnbanHoldTest::unbanIsOffWithoutABan()
{
    QVERIFY(hit("olivia", "login").allowed);
    auto dialog = openDialog("olivia");
    auto* unban = dialog->findChild<QPushButton*>(QStringLiteral("unbanButton"));
    QVERIFY(!unban->isEnabled());
    QCOMPARE(unban->toolTip(), QStringLiteral("This user has no ban to lift"));
    // A ban arrives (its event reloads the dialog): Unban comes on.
    ban("olivia");
    QTRY_VERIFY(unban->isEnabled());
}

void UnbanHoldTest::persistentAbuserUnbanSaysItWillNotHold()
{
    saveViewPolicy();
    floodUntilBanned("scraper-42");
    QVERIFY(exists(m_session->schema().actionBanKey("scraper-42", "view")));
    recordRefused(35);

    auto dialog = openDialog("scraper-42");
    // The rate the ban hides, where support looks; nothing remains until the ban ends, and
    // what resets is the ban (the Subjects page's definition).
    QTRY_VERIFY2(cell(dialog.get(), "view", 1).contains(QStringLiteral("35/s refused")),
                 qPrintable(cell(dialog.get(), "view", 1)));
    QCOMPARE(cell(dialog.get(), "view", 2), QStringLiteral("0"));
    QVERIFY2(cell(dialog.get(), "view", 3).startsWith(QStringLiteral("59m")),
             qPrintable(cell(dialog.get(), "view", 3)));

    ReasonDialog* unban = openUnban(dialog.get());
    QVERIFY(unban);
    auto* warning = unban->findChild<QLabel*>(QStringLiteral("holdWarningLabel"));
    auto* then = unban->findChild<QComboBox*>(QStringLiteral("holdComboBox"));
    QCOMPARE(then->currentIndex(), int(UnbanStep::GiveMore)); // the first step that holds
    QVERIFY2(warning->text().contains(QStringLiteral(
                 "The unban alone would not hold: view: about 35/s against 20 per 1m: banned "
                 "again (ban 1h) within a second.")),
             qPrintable(warning->text()));
    QVERIFY2(warning->text().contains(QStringLiteral("Holds: for a day, 3200 per 1m instead of "
                                                     "20 per 1m on view")),
             qPrintable(warning->text()));
    then->setCurrentIndex(int(UnbanStep::ResetToo)); // resetting does not help either
    QVERIFY2(warning->text().contains(QStringLiteral("view: from zero, about 35/s against 20 "
                                                     "per 1m: banned again (ban 1h) within a "
                                                     "second.")),
             qPrintable(warning->text()));
    then->setCurrentIndex(int(UnbanStep::GiveMore));

    typeReasonAndApply(unban, QStringLiteral("applyUnbanButton"));
    QTRY_VERIFY(!exists(m_session->schema().actionBanKey("scraper-42", "view")));
    std::optional<std::vector<Override>> overrides;
    m_session->overrides().ofUser("scraper-42", this, [&](Result<std::vector<Override>> r) {
        overrides = r ? *r : std::vector<Override>();
    });
    QTRY_VERIFY(overrides.has_value());
    QCOMPARE(overrides->size(), size_t(1));
    QCOMPARE(overrides->front().windows.front().limit, 3200);
    QCOMPARE(overrides->front().reason, QStringLiteral("appeal"));
    // One reason, one trail: the override and the unban, each with its audit entry.
    std::optional<std::vector<AuditEntry>> audit;
    m_session->audit().latest("scraper-42", 10, this, [&](Result<std::vector<AuditEntry>> r) {
        audit = r ? *r : std::vector<AuditEntry>();
    });
    QTRY_VERIFY(audit.has_value());
    QCOMPARE(audit->at(0).event, QStringLiteral("unban"));
    QCOMPARE(audit->at(1).event, QStringLiteral("override"));
    QCOMPARE(audit->at(0).reason, audit->at(1).reason);
    for (int i = 0; i < 40; ++i) // it holds
        QVERIFY(hitView("scraper-42"));
}

void UnbanHoldTest::bannedAgainIsSaidNotLifted()
{
    saveViewPolicy();
    floodUntilBanned("crawler-7");
    auto dialog = openDialog("crawler-7");
    ReasonDialog* unban = openUnban(dialog.get());
    QVERIFY(unban);
    unban->findChild<QComboBox*>(QStringLiteral("holdComboBox"))
        ->setCurrentIndex(int(UnbanStep::LiftOnly));
    typeReasonAndApply(unban, QStringLiteral("applyUnbanButton"));
    auto* message = dialog->findChild<QLabel*>(QStringLiteral("messageLabel"));
    QTRY_COMPARE(message->text(), QStringLiteral("1 ban lifted."));
    QTRY_VERIFY(!exists(m_session->schema().actionBanKey("crawler-7", "view")));
    floodUntilBanned("crawler-7"); // the counters were kept: banned on the next hit
    QTRY_VERIFY_WITH_TIMEOUT(message->text().startsWith(QStringLiteral("Banned again at ")), 8000);
    QVERIFY2(message->text().contains(QStringLiteral("(view, automatic): the unban did not "
                                                     "hold.")),
             qPrintable(message->text()));
}

void UnbanHoldTest::giveMoreOnABannedUserSaysTheBanStays()
{
    ban("dana");
    auto dialog = openDialog("dana");
    QTRY_VERIFY(cell(dialog.get(), "login", 5).startsWith(QStringLiteral("no: banned")));
    auto* giveMore = dialog->findChild<QPushButton*>(QStringLiteral("giveMoreButton"));
    QTRY_VERIFY(giveMore->isEnabled());
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    actions->setCurrentCell(0, 0); // the banned row sorts first
    giveMore->click();
    auto* more = waitForChild<OverrideDialog>(dialog.get(), QStringLiteral("overrideDialog"));
    QVERIFY(more);
    auto* note = more->findChild<QLabel*>(QStringLiteral("banNoteLabel"));
    QVERIFY(note->isVisibleTo(more));
    QVERIFY2(note->text().contains(QStringLiteral("An override does not lift a ban")),
             qPrintable(note->text()));
    auto* alsoUnban = more->findChild<QCheckBox*>(QStringLiteral("alsoUnbanCheckBox"));
    QVERIFY(alsoUnban->isVisibleTo(more));
    QVERIFY(alsoUnban->isChecked()); // giving more is for getting back in
    typeReasonAndApply(more, QStringLiteral("applyOverrideButton"));
    QTRY_VERIFY(!exists(m_session->schema().actionBanKey("dana", "login")));
    auto* message = dialog->findChild<QLabel*>(QStringLiteral("messageLabel"));
    QTRY_VERIFY2(message->text().endsWith(QStringLiteral("1 ban lifted.")),
                 qPrintable(message->text()));
    QVERIFY(hit("dana", "login").allowed);
}

QTEST_MAIN(UnbanHoldTest)
#include "tst_UnbanHold.moc"
