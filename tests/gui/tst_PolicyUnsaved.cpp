// No policy edit lost without a word: change a policy's time zone, select another policy, and
// the change was gone with no prompt and no marker, while Save stayed enabled with nothing
// changed. Now the tab says "Policy *", switching or closing asks Save / Discard / Cancel, and
// Save is on only while something differs from what was loaded.

#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/policies/PolicyEditor.h"

#include <QComboBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class PolicyUnsavedTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void saveIsOffUntilSomethingChanges();
    void switchingAsksAndCancelKeepsTheEdit();
    void discardLoadsTheOtherPolicy();
    void saveAnswerSavesTheEdit();
    void closingAsks();

private:
    void savePolicy(const QByteArray& action);
    /// Both policies in the page, "upload" selected and its time zone changed.
    void editUploadZone();
    void select(const QByteArray& action);
    QString zone() const;
    QString policyTab() const;
    template <typename T> T* child(const char* name) const
    {
        return m_page->findChild<T*>(QLatin1String(name));
    }

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<PoliciesPage> m_page;
    int m_answer = 2; // the prompt's answer: 0 Save, 1 Discard, 2 Cancel
};

void PolicyUnsavedTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Ask::setHook([this](const Ask::Question& question) {
        return question.title == QStringLiteral("Unsaved changes") ? m_answer : 0;
    });
}

void PolicyUnsavedTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("operator-olga"));
    savePolicy("upload");
    savePolicy("view");
    Ask::clearAsked();
    m_page = std::make_unique<PoliciesPage>(m_session.get());
    m_page->resize(1024, 700);
    m_page->show();
    QTRY_COMPARE(m_page->model()->rowCount(), 2);
}

void PolicyUnsavedTest::cleanup()
{
    m_page.reset();
    m_session.reset();
}

void PolicyUnsavedTest::savePolicy(const QByteArray& action)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{100, 86'400'000}};
    policy.calendarAligned = true; // the zone matters (and can be edited)
    policy.timeZone = "UTC";
    std::optional<bool> saved;
    m_session->policies().save(policy, QStringLiteral("core"), this,
                               [&](Result<qint64> r) { saved = r.ok(); });
    QVERIFY(QTest::qWaitFor([&] { return saved.has_value(); }, 5000) && *saved);
}

void PolicyUnsavedTest::select(const QByteArray& action)
{
    child<QTableView>("policiesTableView")->selectRow(m_page->model()->rowOf(action));
}

QString PolicyUnsavedTest::zone() const
{
    return child<QComboBox>("timeZoneComboBox")->currentText();
}

QString PolicyUnsavedTest::policyTab() const
{
    return child<QTabWidget>("policyTabWidget")->tabText(0);
}

void PolicyUnsavedTest::editUploadZone()
{
    select("upload");
    QCOMPARE(m_page->editor()->loadedAction(), QByteArray("upload"));
    child<QComboBox>("timeZoneComboBox")->setCurrentText(QStringLiteral("Europe/Berlin"));
    QVERIFY(m_page->editor()->isModified());
    QCOMPARE(policyTab(), QStringLiteral("Policy *"));
}

void PolicyUnsavedTest::saveIsOffUntilSomethingChanges()
{
    select("upload");
    auto* save = child<QPushButton>("saveButton");
    QVERIFY(!save->isEnabled());
    QCOMPARE(policyTab(), QStringLiteral("Policy"));
    child<QComboBox>("timeZoneComboBox")->setCurrentText(QStringLiteral("Europe/Berlin"));
    QVERIFY(save->isEnabled());
    child<QComboBox>("timeZoneComboBox")->setCurrentText(QStringLiteral("UTC")); // typed back
    QVERIFY(!save->isEnabled());
    QCOMPARE(policyTab(), QStringLiteral("Policy"));
}

void PolicyUnsavedTest::switchingAsksAndCancelKeepsTheEdit()
{
    editUploadZone();
    m_answer = 2;
    select("view");
    QCOMPARE(Ask::asked().size(), 1);
    QVERIFY2(Ask::asked().first().text.contains(QStringLiteral("\"upload\" has unsaved changes")),
             qPrintable(Ask::asked().first().text));
    QCOMPARE(m_page->editor()->loadedAction(), QByteArray("upload"));
    QCOMPARE(zone(), QStringLiteral("Europe/Berlin"));
    QCOMPARE(m_page->model()
                 ->policyAt(child<QTableView>("policiesTableView")
                                ->selectionModel()
                                ->selectedRows()
                                .first()
                                .row())
                 ->action,
             QByteArray("upload")); // the row stays on the edited policy
}

void PolicyUnsavedTest::discardLoadsTheOtherPolicy()
{
    editUploadZone();
    m_answer = 1;
    select("view");
    QCOMPARE(m_page->editor()->loadedAction(), QByteArray("view"));
    QCOMPARE(zone(), QStringLiteral("UTC"));
    QCOMPARE(policyTab(), QStringLiteral("Policy"));
    select("upload"); // the edit was discarded, as asked
    QCOMPARE(zone(), QStringLiteral("UTC"));
}

void PolicyUnsavedTest::saveAnswerSavesTheEdit()
{
    editUploadZone();
    m_answer = 0;
    test::AutoAnswerReasonPrompts reasons(m_page.get(), QStringLiteral("office moved"));
    select("view");
    QTRY_COMPARE(policyTab(), QStringLiteral("Policy")); // saved
    std::optional<Policy> stored;
    m_session->policies().get("upload", this, [&](Result<Policy> r) {
        if (r)
            stored = *r;
    });
    QTRY_VERIFY(stored.has_value());
    QCOMPARE(stored->timeZone, QByteArray("Europe/Berlin"));
}

void PolicyUnsavedTest::closingAsks()
{
    editUploadZone();
    m_answer = 2;
    QVERIFY(!m_page->close());
    QVERIFY(m_page->isVisible());
    QCOMPARE(Ask::asked().size(), 1);
    m_answer = 1;
    m_page->close();
    QTRY_VERIFY(!m_page->isVisible());
}

QTEST_MAIN(PolicyUnsavedTest)
#include "tst_PolicyUnsaved.moc"
