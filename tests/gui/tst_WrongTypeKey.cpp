// A ban key of the wrong type (`SET tg:{victim}:ban x` by another tool) turned every verdict
// into "wrongtype: WRONGTYPE Operation ag…" without naming the key, and nothing offered to fix
// it. The user detail names the key and what it must be, and Repair… deletes it through the
// scripts, with a reason and an audit entry. The Keys page's no-TTL finder lists such a key
// (repair.lua skips it: no TTL would help) with the same explanation, and deletes it the same way.
#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/gui/UserDetailFixture.h"
#include "ui/keys/KeysPage.h"
#include "ui/keys/NoTtlModel.h"
#include "ui/keys/NoTtlPanel.h"

#include <QLabel>
#include <QPushButton>
#include <QTableView>
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
    void noTtlFinderListsWrongTypeBan();

private:
    // The newest audit entry of `user`, or none.
    std::optional<AuditEntry> latestAudit(const QByteArray& user);
};

std::optional<AuditEntry> WrongTypeKeyTest::latestAudit(const QByteArray& user)
{
    std::optional<std::vector<AuditEntry>> audit;
    m_session->audit().latest(user, 5, this, [&](Result<std::vector<AuditEntry>> r) {
        audit = r ? *r : std::vector<AuditEntry>();
    });
    if (!QTest::qWaitFor([&] { return audit.has_value(); }, 5000) || audit->empty())
        return std::nullopt;
    return audit->front();
}

void WrongTypeKeyTest::wrongTypeBanIsNamedAndRepaired()
{
    QCOMPARE(m_redis.command({"SET", "tg:{victim}:ban", "x"}), QByteArray("+OK\r\n"));
    auto dialog = openDialog("victim");
    auto* error = dialog->findChild<QLabel*>(QStringLiteral("errorLabel"));
    QVERIFY(error);
    QTRY_VERIFY2(error->text().contains(QStringLiteral(
                     "tg:{victim}:ban is a string; Tollgate keeps a ban as a hash: every verdict "
                     "for victim fails until it is deleted.")),
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
    const std::optional<AuditEntry> audit = latestAudit("victim");
    QVERIFY(audit);
    QCOMPARE(audit->reason, QStringLiteral("another tool"));
}

void WrongTypeKeyTest::noTtlFinderListsWrongTypeBan()
{
    QCOMPARE(m_redis.command({"SET", "tg:{victim}:ban", "x"}), QByteArray("+OK\r\n"));
    KeysPage page(m_session.get());
    page.resize(1280, 800);
    page.show();
    NoTtlPanel* panel = page.noTtlPanel();
    QSignalSpy finished(panel, &NoTtlPanel::finished);
    page.findChild<QPushButton*>(QStringLiteral("findNoTtlButton"))->click();
    QVERIFY(finished.wait(10'000));

    // Listed, with what is wrong and what it does to the user, not only counted as skipped.
    NoTtlModel* model = panel->model();
    int row = -1;
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->item(r).key == "tg:{victim}:ban")
            row = r;
    QVERIFY2(row >= 0, qPrintable(QString::number(model->rowCount())));
    QCOMPARE(model->index(row, NoTtlModel::StatusColumn).data().toString(),
             QStringLiteral("wrong type"));
    const QString explained = model->index(row, NoTtlModel::TtlColumn).data().toString();
    QVERIFY2(explained.contains(QStringLiteral(
                 "tg:{victim}:ban is a string; Tollgate keeps a ban as a hash: every verdict "
                 "for victim fails until it is deleted")),
             qPrintable(explained));
    auto* status = page.findChild<QLabel*>(QStringLiteral("repairStatusLabel"));
    QVERIFY2(status->text().contains(QStringLiteral("1 of the wrong type")),
             qPrintable(status->text()));
    page.grab().save(QStringLiteral("/tmp/tollgate-wrongtype-finder.png")); // to look at

    // A developer deletes it through the scripts, with a reason and an audit entry.
    auto* table = page.findChild<QTableView*>(QStringLiteral("noTtlTableView"));
    table->selectRow(row);
    auto* remove = page.findChild<QPushButton*>(QStringLiteral("deleteWrongTypeButton"));
    QVERIFY(remove && remove->isVisibleTo(&page));
    QVERIFY(remove->isEnabled());
    remove->click();
    QTRY_VERIFY(test::openReasonPrompt(panel));
    const QString asked = test::answerReasonPrompt(panel, QStringLiteral("written by a script"));
    QVERIFY2(asked.contains(QStringLiteral("tg:{victim}:ban")), qPrintable(asked));
    QTRY_VERIFY(!exists("tg:{victim}:ban"));
    QTRY_COMPARE(model->index(row, NoTtlModel::StatusColumn).data().toString(),
                 QStringLiteral("deleted"));
    const std::optional<AuditEntry> audit = latestAudit("victim");
    QVERIFY(audit);
    QCOMPARE(audit->reason, QStringLiteral("written by a script"));
    QCOMPARE(audit->actor, QStringLiteral("operator-jane"));
}

QTEST_MAIN(WrongTypeKeyTest)
#include "tst_WrongTypeKey.moc"
