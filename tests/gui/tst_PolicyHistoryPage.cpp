// The History tab of the Policies page: the revisions of the selected action, a field-by-field
// comparison of any two, and "Restore this revision…", which asks why, writes a new revision
// compare-and-set (a conflict is reported, nothing overwritten), and brings deleted policies back.

#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/PolicyStore.h"
#include "ui/audit/AuditModel.h"
#include "ui/audit/AuditPage.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/policies/PolicyEditor.h"
#include "ui/policies/PolicyHistoryPanel.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::answerReasonPrompt;
using tollgate::test::openReasonPrompt;

class PolicyHistoryPageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void historyDiffAndRestore();
    void restoreHonoursTheConflictCheck();
    void deletedPolicyComesBack();
    void auditPageReadsRollbackAndRestore();

private:
    // Saves `action` with limits 1, 2, ... `revisions` per minute through the core.
    void saveRevisions(const QByteArray& action, int revisions);
    Result<Policy> stored(const QByteArray& action);
    void openHistory(const QByteArray& action, int rows);
    template <typename T> T* child(const char* name)
    {
        return m_page->findChild<T*>(QLatin1String(name));
    }
    QTableWidget* revisions() { return child<QTableWidget>("revisionsTableWidget"); }

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<PoliciesPage> m_page;
};

void PolicyHistoryPageTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Ask::setHook([](const Ask::Question&) { return 0; });
}

void PolicyHistoryPageTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    Ask::clearAsked();
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("ops-olga"));
}

void PolicyHistoryPageTest::cleanup()
{
    m_page.reset();
    m_session.reset();
}

void PolicyHistoryPageTest::saveRevisions(const QByteArray& action, int revisions)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{1, 60000}};
    for (int i = 1; i <= revisions; ++i) {
        policy.windows[0].limit = i;
        std::optional<Result<qint64>> result;
        m_session->policies().save(policy, QStringLiteral("core"), this,
                                   [&](Result<qint64> r) { result = r; });
        QTRY_VERIFY(result.has_value());
        QVERIFY(*result);
        policy.revision = **result;
    }
}

Result<Policy> PolicyHistoryPageTest::stored(const QByteArray& action)
{
    std::optional<Result<Policy>> result;
    m_session->policies().get(action, this, [&](Result<Policy> r) { result = r; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 5000))
        return Error{ErrorKind::Timeout, QStringLiteral("no answer")};
    return *result;
}

void PolicyHistoryPageTest::openHistory(const QByteArray& action, int rows)
{
    m_page = std::make_unique<PoliciesPage>(m_session.get());
    m_page->resize(1024, 700);
    m_page->show();
    QTRY_VERIFY(m_page->model()->rowOf(action) >= 0);
    child<QTableView>("policiesTableView")->selectRow(m_page->model()->rowOf(action));
    m_page->showHistory();
    QTRY_COMPARE(m_page->historyPanel()->action(), action);
    QTRY_COMPARE(revisions()->rowCount(), rows);
}

void PolicyHistoryPageTest::historyDiffAndRestore()
{
    saveRevisions("like", 3);
    openHistory("like", 3);
    QCOMPARE(revisions()->item(0, 0)->text(), QStringLiteral("3 (current)"));
    QCOMPARE(revisions()->item(2, 2)->text(), QStringLiteral("core"));
    auto* restore = child<QPushButton>("restoreRevisionButton");
    QVERIFY(!restore->isEnabled()); // nothing selected

    // Revision 1 against the stored one, field by field.
    revisions()->selectRow(2);
    auto* diff = child<QTableWidget>("diffTableWidget");
    QCOMPARE(diff->rowCount(), 1);
    QCOMPARE(diff->item(0, 0)->text(), QStringLiteral("windows"));
    QCOMPARE(diff->item(0, 1)->text(), QStringLiteral("1m:1"));
    QCOMPARE(diff->item(0, 2)->text(), QStringLiteral("1m:3"));
    // Any two revisions: 2 with 1.
    child<QComboBox>("diffBeforeComboBox")->setCurrentIndex(1);
    QCOMPARE(diff->item(0, 1)->text(), QStringLiteral("1m:1"));
    QCOMPARE(diff->item(0, 2)->text(), QStringLiteral("1m:2"));
    child<QComboBox>("diffBeforeComboBox")->setCurrentIndex(2);
    QCOMPARE(diff->rowCount(), 0);
    QVERIFY(child<QLabel>("diffSummaryLabel")->text().contains(QStringLiteral("same revision")));

    // Restore revision 1: asks why, then saves it as revision 4.
    QVERIFY(restore->isEnabled());
    restore->click();
    QTRY_VERIFY(openReasonPrompt(m_page.get()));
    QVERIFY(answerReasonPrompt(m_page.get(), QStringLiteral("bad deploy"))
                .contains(QStringLiteral("revision 1")));
    QTRY_COMPARE(stored("like")->revision, qint64(4));
    QCOMPARE(stored("like")->windows.front().limit, qint64(1));
    QCOMPARE(stored("like")->updatedBy, QStringLiteral("ops-olga"));
    QTRY_COMPARE(revisions()->rowCount(), 4); // nothing rewritten: 4, 3, 2, 1
    QTRY_COMPARE(revisions()->item(0, 3)->text(), QStringLiteral("bad deploy"));
    QTRY_VERIFY(child<QLabel>("historyStatusLabel")
                    ->text()
                    .contains(QStringLiteral("revision 1 is back as revision 4")));
    // The editor follows the new revision.
    QTRY_COMPARE(m_page->editor()->loadedRevision(), qint64(4));
}

void PolicyHistoryPageTest::restoreHonoursTheConflictCheck()
{
    saveRevisions("like", 2);
    openHistory("like", 2);
    revisions()->selectRow(1);
    child<QPushButton>("restoreRevisionButton")->click();
    QTRY_VERIFY(openReasonPrompt(m_page.get()));
    // Someone else writes a revision while the reason is typed (no event announces it here).
    QCOMPARE(m_redis.command({"HSET", "tg:policy:like", "revision", "7"}), QByteArray(":0\r\n"));
    answerReasonPrompt(m_page.get(), QStringLiteral("bad deploy"));
    QTRY_VERIFY(!Ask::asked().isEmpty());
    QCOMPARE(Ask::asked().last().kind, Ask::Kind::Warning);
    QVERIFY2(Ask::asked().last().text.contains(QStringLiteral("conflict")),
             qPrintable(Ask::asked().last().text));
    QCOMPARE(stored("like")->revision, qint64(7)); // nothing overwritten
    QCOMPARE(stored("like")->windows.front().limit, qint64(2));
}

void PolicyHistoryPageTest::deletedPolicyComesBack()
{
    saveRevisions("upload", 2);
    saveRevisions("like", 1);
    std::optional<Status> removed;
    m_session->policies().remove("upload", 2, QStringLiteral("core"), this,
                                 [&](Status s) { removed = s; });
    QTRY_VERIFY(removed.has_value() && *removed);

    openHistory("like", 1);
    auto* action = child<QLineEdit>("historyActionLineEdit");
    action->setText(QStringLiteral("upload"));
    child<QPushButton>("showHistoryButton")->click();
    QTRY_COMPARE(revisions()->rowCount(), 2);
    QTRY_VERIFY(child<QLabel>("historyStatusLabel")->text().contains(QStringLiteral("Deleted")));
    QCOMPARE(revisions()->item(0, 0)->text(), QStringLiteral("2"));

    revisions()->selectRow(0);
    child<QPushButton>("restoreRevisionButton")->click();
    QTRY_VERIFY(openReasonPrompt(m_page.get()));
    QVERIFY(answerReasonPrompt(m_page.get(), QStringLiteral("deleted by mistake"))
                .contains(QStringLiteral("deleted")));
    QTRY_COMPARE(stored("upload")->revision, qint64(3));
    QTRY_VERIFY(m_page->model()->rowOf("upload") >= 0); // back in the table
    QTRY_COMPARE(revisions()->item(0, 0)->text(), QStringLiteral("3 (current)"));
}

void PolicyHistoryPageTest::auditPageReadsRollbackAndRestore()
{
    saveRevisions("like", 2);
    const auto await = [this](auto call) {
        std::optional<Result<qint64>> result;
        call([&](Result<qint64> r) { result = r; });
        QTRY_VERIFY(result.has_value());
        QVERIFY2(*result, *result ? "" : qPrintable(result->error().toString()));
    };
    const PolicyStore store = m_session->policies();
    await([&](Callback<qint64> done) {
        store.rollback("like", 2, 1, QStringLiteral("ops-olga"), QStringLiteral("bad deploy"), this,
                       done);
    });
    std::optional<Status> removed;
    store.remove("like", 3, QStringLiteral("core"), this, [&](Status s) { removed = s; });
    QTRY_VERIFY(removed.has_value() && *removed);
    await([&](Callback<qint64> done) {
        store.restore("like", 0, QStringLiteral("ops-paul"), QStringLiteral("deleted by mistake"),
                      this, done);
    });

    // Read like a ban: who, which action, why, and which revision came back as which.
    AuditPage page(m_session.get());
    page.show();
    AuditModel* model = page.model();
    QTRY_VERIFY(model->rowCount() >= 5);
    const auto cell = [model](int row, AuditModel::Column column) {
        return model->data(model->index(row, column)).toString();
    };
    QCOMPARE(cell(0, AuditModel::Event), QStringLiteral("restore"));
    QCOMPARE(cell(0, AuditModel::Action), QStringLiteral("like"));
    QCOMPARE(cell(0, AuditModel::Actor), QStringLiteral("ops-paul"));
    QCOMPARE(cell(0, AuditModel::Reason),
             QStringLiteral("deleted by mistake (revision 3 back as revision 4)"));
    QCOMPARE(cell(2, AuditModel::Event), QStringLiteral("rollback"));
    QCOMPARE(cell(2, AuditModel::Actor), QStringLiteral("ops-olga"));
    QCOMPARE(cell(2, AuditModel::Reason),
             QStringLiteral("bad deploy (revision 1 back as revision 3)"));
}

QTEST_MAIN(PolicyHistoryPageTest)
#include "tst_PolicyHistoryPage.moc"
