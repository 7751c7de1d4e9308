// A ban key of the wrong type (`SET tg:{victim}:ban x` by another tool) turned every verdict
// into "wrongtype: WRONGTYPE Operation ag…" without naming the key, and nothing offered to fix
// it. The user detail names the key and what it must be, and Repair… deletes it through the
// scripts, with a reason and an audit entry.
#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/gui/UserDetailFixture.h"

#include <QLabel>
#include <QPushButton>
#include <QTableWidget>

using namespace tollgate;
using namespace tollgate::ui;

class WrongTypeKeyTest : public test::UserDetailFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { m_session.reset(); }
    void wrongTypeBanIsNamedAndRepaired();
};

void WrongTypeKeyTest::wrongTypeBanIsNamedAndRepaired()
{
    QCOMPARE(m_redis.command({"SET", "tg:{victim}:ban", "x"}), QByteArray("+OK\r\n"));
    auto dialog = openDialog("victim");
    auto* error = dialog->findChild<QLabel*>(QStringLiteral("errorLabel"));
    QVERIFY(error);
    QTRY_VERIFY2(error->text().contains(QStringLiteral(
                     "tg:{victim}:ban: this is a string, but a key in this place of Tollgate's "
                     "schema must be a hash.")),
                 qPrintable(error->text()));
    auto* actions = dialog->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QTRY_VERIFY2(actions->item(0, 5)->text().contains(
                     QStringLiteral("tg:{victim}:ban is a string, Tollgate expects a hash")),
                 qPrintable(actions->item(0, 5)->text()));
    auto* repair = dialog->findChild<QPushButton*>(QStringLiteral("repairKeysButton"));
    QVERIFY(repair->isVisibleTo(dialog.get()));
    QVERIFY(repair->isEnabled());

    repair->click();
    QTRY_VERIFY(test::openReasonPrompt(dialog.get()));
    const QString asked = test::answerReasonPrompt(dialog.get(), QStringLiteral("another tool"));
    QVERIFY2(asked.contains(QStringLiteral("tg:{victim}:ban")), qPrintable(asked));
    QTRY_VERIFY(!exists("tg:{victim}:ban"));
    QTRY_VERIFY2(actions->item(0, 5)->text() == QStringLiteral("yes"),
                 qPrintable(actions->item(0, 5)->text()));
    QTRY_VERIFY(!repair->isVisibleTo(dialog.get()));
    std::optional<std::vector<AuditEntry>> audit;
    m_session->audit().latest("victim", 5, this, [&](Result<std::vector<AuditEntry>> r) {
        audit = r ? *r : std::vector<AuditEntry>();
    });
    QTRY_VERIFY(audit.has_value());
    QVERIFY(!audit->empty());
    QCOMPARE(audit->front().reason, QStringLiteral("another tool"));
}

QTEST_MAIN(WrongTypeKeyTest)
#include "tst_WrongTypeKey.moc"
