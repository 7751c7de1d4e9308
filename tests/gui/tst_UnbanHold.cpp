// An unban that cannot hold: a user still at the limit is denied (and banned again) on the
// next hit after an unban that keeps the counters. The unban dialog says so before support
// confirms, with the user's usage against the limit, and checks what would hold (resetting
// the counters too). Unban is off for a user without a ban.
#include "tests/gui/UserDetailFixture.h"
#include "ui/user/ReasonDialog.h"

#include <QCheckBox>
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

private:
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
    QVERIFY2(warning->text().contains(QStringLiteral("the next hit is denied")),
             qPrintable(warning->text()));
    QVERIFY(warning->text().contains(QStringLiteral("reset the counters too")));
    auto* alsoReset = unban->findChild<QCheckBox*>(QStringLiteral("alsoResetCheckBox"));
    QVERIFY(alsoReset->isChecked()); // what would hold is offered, checked

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
    QVERIFY2(warning->text().contains(QStringLiteral("login: 2 of 5 per 1m used: the next hit "
                                                     "passes")),
             qPrintable(warning->text()));
    QVERIFY(!unban->findChild<QCheckBox*>(QStringLiteral("alsoResetCheckBox"))->isChecked());
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

QTEST_MAIN(UnbanHoldTest)
#include "tst_UnbanHold.moc"
