// The user detail's Overrides section against a real redis-server: an exemption added from the
// UI lets a user past the limit and the verdict says so; editing and removing it (with a reason)
// take effect; each write lands in the user's audit history worded plainly; invalid input is
// refused inline and writes nothing; a read-only profile has the override buttons off.
#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/gui/UserDetailFixture.h"
#include "ui/common/AuditText.h"
#include "ui/user/OverrideDialog.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>

using namespace tollgate;
using namespace tollgate::ui;

class tst_UserOverrides : public test::UserDetailFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { startFixture(); }
    void cleanupTestCase() { m_session.reset(); }
    void exemptionLetsPastTheLimit();
    void editChangesTheOverride();
    void removeAsksForAReason();
    void invalidInputWritesNothing_data();
    void invalidInputWritesNothing();
    void auditEntriesReadPlainly();

private:
    OverrideDialog* openOverrideDialog(UserDetailDialog* detail, const char* button);
    QString verdict(QTableWidget* actions, const char* action) const;
};

OverrideDialog* tst_UserOverrides::openOverrideDialog(UserDetailDialog* detail, const char* button)
{
    auto* clicked = detail->findChild<QPushButton*>(QLatin1String(button));
    if (!QTest::qWaitFor([&] { return clicked->isEnabled(); }, 5000))
        return nullptr;
    clicked->click();
    OverrideDialog* found = nullptr;
    const bool appeared = QTest::qWaitFor(
        [&] {
            for (auto* dialog : detail->findChildren<OverrideDialog*>())
                if (dialog->isVisible())
                    found = dialog;
            return found != nullptr;
        },
        3000);
    return appeared ? found : nullptr;
}

QString tst_UserOverrides::verdict(QTableWidget* actions, const char* action) const
{
    for (int row = 0; row < actions->rowCount(); ++row)
        if (actions->item(row, 0) && actions->item(row, 0)->text() == QLatin1String(action))
            return actions->item(row, 5)->text();
    return {};
}

void tst_UserOverrides::exemptionLetsPastTheLimit()
{
    for (int i = 0; i < 5; ++i)
        QVERIFY(hit("erin", "login").allowed);
    QVERIFY(!hit("erin", "login").allowed);
    auto detail = openDialog("erin");
    auto* actions = detail->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QTRY_VERIFY(verdict(actions, "login").startsWith(QStringLiteral("no: over the limit")));
    QVERIFY(!detail->findChild<QPushButton*>(QStringLiteral("editOverrideButton"))->isEnabled());

    OverrideDialog* add = openOverrideDialog(detail.get(), "addOverrideButton");
    QVERIFY(add);
    auto* scope = add->findChild<QComboBox*>(QStringLiteral("scopeComboBox"));
    scope->setCurrentIndex(scope->findData(QByteArray("*")));
    add->findChild<QRadioButton*>(QStringLiteral("unlimitedRadioButton"))->setChecked(true);
    QVERIFY(!add->findChild<QLineEdit*>(QStringLiteral("windowsLineEdit"))->isEnabled());
    add->findChild<QRadioButton*>(QStringLiteral("permanentRadioButton"))->setChecked(true);
    QTest::keyClicks(add->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("load test"));
    add->findChild<QPushButton*>(QStringLiteral("applyOverrideButton"))->click();

    auto* table = detail->findChild<QTableWidget*>(QStringLiteral("overridesTableWidget"));
    QTRY_COMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("all actions"));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("unlimited (exempt)"));
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("permanent"));
    QCOMPARE(table->item(0, 3)->text(), QStringLiteral("operator-jane"));
    QCOMPARE(table->item(0, 4)->text(), QStringLiteral("load test"));
    QTRY_COMPARE(verdict(actions, "login"), QStringLiteral("yes: exempt (override)"));
    auto* message = detail->findChild<QLabel*>(QStringLiteral("messageLabel"));
    QVERIFY(message->text().contains(QStringLiteral("unlimited")));

    const HitResult past = hit("erin", "login");
    QVERIFY(past.allowed);
    QCOMPARE(past.appliedOverride, AppliedOverride::Unlimited);
    QVERIFY(past.count > 5); // still counted
}

void tst_UserOverrides::editChangesTheOverride()
{
    auto detail = openDialog("erin");
    auto* table = detail->findChild<QTableWidget*>(QStringLiteral("overridesTableWidget"));
    QTRY_COMPARE(table->rowCount(), 1);
    OverrideDialog* edit = openOverrideDialog(detail.get(), "editOverrideButton");
    QVERIFY(edit);
    auto* scope = edit->findChild<QComboBox*>(QStringLiteral("scopeComboBox"));
    QVERIFY(!scope->isEnabled()); // a change of this override, not another one
    QCOMPARE(scope->currentData().toByteArray(), QByteArray("*"));
    QVERIFY(edit->findChild<QRadioButton*>(QStringLiteral("unlimitedRadioButton"))->isChecked());
    QVERIFY(edit->findChild<QRadioButton*>(QStringLiteral("permanentRadioButton"))->isChecked());

    edit->findChild<QRadioButton*>(QStringLiteral("limitRadioButton"))->setChecked(true);
    auto* windows = edit->findChild<QLineEdit*>(QStringLiteral("windowsLineEdit"));
    windows->setText(QStringLiteral("1m:100,1h:400"));
    edit->findChild<QComboBox*>(QStringLiteral("durationComboBox"))
        ->setEditText(QStringLiteral("2h"));
    edit->findChild<QRadioButton*>(QStringLiteral("durationRadioButton"))->setChecked(true);
    QTest::keyClicks(edit->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")),
                     QStringLiteral("load test, capped"));
    edit->findChild<QPushButton*>(QStringLiteral("applyOverrideButton"))->click();

    QTRY_COMPARE(table->item(0, 1)->text(), QStringLiteral("100 per 1m, 400 per 1h"));
    QVERIFY(table->item(0, 2)->text().startsWith(QStringLiteral("in 1h 59m")));
    const HitResult capped = hit("erin", "login");
    QVERIFY(capped.allowed);
    QCOMPARE(capped.appliedOverride, AppliedOverride::Limit);
    QCOMPARE(capped.limit, qint64(100));
}

void tst_UserOverrides::removeAsksForAReason()
{
    auto detail = openDialog("erin");
    auto* table = detail->findChild<QTableWidget*>(QStringLiteral("overridesTableWidget"));
    QTRY_COMPARE(table->rowCount(), 1);
    auto* remove = detail->findChild<QPushButton*>(QStringLiteral("removeOverrideButton"));
    QTRY_VERIFY(remove->isEnabled());
    remove->click();
    QTRY_VERIFY(test::openReasonPrompt(detail.get()));
    const QString asked = test::answerReasonPrompt(detail.get(), QStringLiteral("test over"));
    QVERIFY2(asked.contains(QStringLiteral("all actions")), qPrintable(asked));
    QTRY_COMPARE(table->rowCount(), 0);
    QVERIFY(!exists(m_session->schema().overridesKey("erin")));
    const HitResult back = hit("erin", "login");
    QVERIFY(!back.allowed); // the policy again: far past 5 a minute
    QCOMPARE(back.appliedOverride, AppliedOverride::None);
}

void tst_UserOverrides::invalidInputWritesNothing_data()
{
    QTest::addColumn<QString>("windows");
    QTest::addColumn<QString>("duration");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("error");
    QTest::newRow("no reason") << QStringLiteral("1m:10") << QStringLiteral("24h")
                               << QStringLiteral("") << QStringLiteral("");
    QTest::newRow("a limit of 0") << QStringLiteral("1m:0") << QStringLiteral("24h")
                                  << QStringLiteral("why") << QStringLiteral("limit");
    QTest::newRow("no windows") << QStringLiteral("") << QStringLiteral("24h")
                                << QStringLiteral("why") << QStringLiteral("window");
    QTest::newRow("for 0") << QStringLiteral("1m:10") << QStringLiteral("0s")
                           << QStringLiteral("why") << QStringLiteral("override");
    QTest::newRow("not a duration") << QStringLiteral("1m:10") << QStringLiteral("soon")
                                    << QStringLiteral("why") << QStringLiteral("soon");
}

void tst_UserOverrides::invalidInputWritesNothing()
{
    QFETCH(QString, windows);
    QFETCH(QString, duration);
    QFETCH(QString, reason);
    QFETCH(QString, error);
    auto detail = openDialog("gina");
    OverrideDialog* add = openOverrideDialog(detail.get(), "addOverrideButton");
    QVERIFY(add);
    add->findChild<QLineEdit*>(QStringLiteral("windowsLineEdit"))->setText(windows);
    add->findChild<QComboBox*>(QStringLiteral("durationComboBox"))->setEditText(duration);
    QTest::keyClicks(add->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit")), reason);
    auto* apply = add->findChild<QPushButton*>(QStringLiteral("applyOverrideButton"));
    QVERIFY(!apply->isEnabled());
    const QString shown = add->findChild<QLabel*>(QStringLiteral("errorLabel"))->text();
    QVERIFY2(shown.contains(error, Qt::CaseInsensitive), qPrintable(shown));
    apply->click(); // disabled: nothing happens
    QTest::qWait(200);
    QVERIFY(add->isVisible());
    QVERIFY(!exists(m_session->schema().overridesKey("gina")));
    add->reject();
}

void tst_UserOverrides::auditEntriesReadPlainly()
{
    auto detail = openDialog("erin");
    auto* audit = detail->findChild<QTableWidget*>(QStringLiteral("auditTableWidget"));
    QTRY_VERIFY(audit->rowCount() >= 3);
    // Newest first: removed, then the change, then the exemption; like a ban, with actor,
    // reason and until.
    QCOMPARE(audit->item(0, 1)->text(), QStringLiteral("override removed"));
    QCOMPARE(audit->item(0, 2)->text(), QStringLiteral("(all)"));
    QCOMPARE(audit->item(0, 4)->text(), QStringLiteral("test over"));
    QCOMPARE(audit->item(1, 1)->text(), QStringLiteral("override"));
    QCOMPARE(audit->item(1, 1)->toolTip(), QStringLiteral("override: 100 per 1m, 400 per 1h"));
    QCOMPARE(audit->item(1, 3)->text(), QStringLiteral("operator-jane"));
    QVERIFY(!audit->item(1, 5)->text().isEmpty());
    QCOMPARE(audit->item(2, 1)->text(), QStringLiteral("exemption"));
    QCOMPARE(audit->item(2, 1)->toolTip(), QStringLiteral("override: unlimited (exempt)"));
    QCOMPARE(audit->item(2, 4)->text(), QStringLiteral("load test"));
    QCOMPARE(audit->item(2, 5)->text(), QStringLiteral("permanent"));
}

QTEST_MAIN(tst_UserOverrides)
#include "tst_UserOverrides.moc"
