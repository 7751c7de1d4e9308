// Saving a policy in the console: every save asks why and shows the old and new values, and
// the audit entry keeps the reason with both; a declined prompt saves nothing. The editor
// takes several windows for every algorithm, as hit.lua and tollgatectl do.

#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/gui/GuiSession.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/AuditLog.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/policies/PolicyEditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::answerReasonPrompt;
using tollgate::test::openReasonPrompt;

class PolicyEditingTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void saveAsksWhyAndShowsOldAndNew();
    void declinedReasonSavesNothing();
    void severalWindowsForEveryAlgorithm_data();
    void severalWindowsForEveryAlgorithm();
    void shadowToEnforcedPreviewsAndSaves();

private:
    Policy save(Policy policy);
    Result<Policy> stored(const QByteArray& action);
    PoliciesPage* openPage(int rows);
    void select(const QByteArray& action);
    /// A policy of `limit` per `windowMs` saved by the core, then in the page: its limit set to
    /// `newLimit` and Save clicked, until the reason prompt is open.
    void editLimitUntilAsked(const QByteArray& action, qint64 windowMs, qint64 limit,
                             qint64 newLimit);
    template <typename T> T* child(const char* name)
    {
        return m_page->findChild<T*>(QLatin1String(name));
    }

    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<PoliciesPage> m_page;
};

void PolicyEditingTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Ask::setHook([](const Ask::Question&) { return 0; }); // "Save anyway" if limits deny now
}

void PolicyEditingTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    m_session = test::connectedSession(m_redis.url(), QStringLiteral("support-sam"));
}

void PolicyEditingTest::cleanup()
{
    m_page.reset();
    m_session.reset();
}

Policy PolicyEditingTest::save(Policy policy)
{
    std::optional<Result<qint64>> result;
    m_session->policies().save(policy, QStringLiteral("core"), this,
                               [&](Result<qint64> r) { result = r; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 5000) || !*result)
        qFatal("saving the policy through the core failed");
    policy.revision = **result;
    return policy;
}

Result<Policy> PolicyEditingTest::stored(const QByteArray& action)
{
    std::optional<Result<Policy>> result;
    m_session->policies().get(action, this, [&](Result<Policy> r) { result = r; });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 5000))
        return Error{ErrorKind::Timeout, QStringLiteral("no answer")};
    return *result;
}

PoliciesPage* PolicyEditingTest::openPage(int rows)
{
    m_page = std::make_unique<PoliciesPage>(m_session.get());
    m_page->resize(1024, 700);
    m_page->show();
    [&] { QTRY_COMPARE(m_page->model()->rowCount(), rows); }();
    return m_page.get();
}

void PolicyEditingTest::select(const QByteArray& action)
{
    child<QTableView>("policiesTableView")->clearSelection();
    child<QTableView>("policiesTableView")->selectRow(m_page->model()->rowOf(action));
    QCOMPARE(m_page->editor()->loadedAction(), action);
}

void PolicyEditingTest::editLimitUntilAsked(const QByteArray& action, qint64 windowMs, qint64 limit,
                                            qint64 newLimit)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{limit, windowMs}};
    save(policy);
    openPage(1);
    select(action);
    child<QSpinBox>("limitSpinBox")->setValue(int(newLimit));
    QTest::mouseClick(child<QPushButton>("saveButton"), Qt::LeftButton);
    QTRY_VERIFY(openReasonPrompt(m_page.get()));
}

void PolicyEditingTest::saveAsksWhyAndShowsOldAndNew()
{
    editLimitUntilAsked("upload", 86'400'000, 100, 120);
    const QString shown = answerReasonPrompt(m_page.get(), QStringLiteral("campaign week"));
    QVERIFY2(shown.contains(QStringLiteral("Limits: 100 per 1d \u2192 120 per 1d")),
             qPrintable(shown));
    QVERIFY2(!shown.contains(QStringLiteral("Ban:")), qPrintable(shown)); // unchanged: not listed

    QTRY_COMPARE(stored("upload")->revision, qint64(2));
    QCOMPARE(stored("upload")->windows.front().limit, qint64(120));
    std::optional<Result<std::vector<AuditEntry>>> audit;
    m_session->audit().latest(QByteArray(), 10, this,
                              [&](Result<std::vector<AuditEntry>> r) { audit = r; });
    QTRY_VERIFY(audit.has_value());
    QVERIFY(*audit && !(*audit)->empty());
    const AuditEntry& entry = (*audit)->front(); // newest first
    QCOMPARE(entry.event, QStringLiteral("policy"));
    QCOMPARE(entry.actor, QStringLiteral("support-sam"));
    QVERIFY2(entry.reason.startsWith(QStringLiteral("campaign week")), qPrintable(entry.reason));
    // policy_set.lua keeps the old and the new value of what changed.
    QCOMPARE(entry.detail, QStringLiteral("revision=2; windows: 86400000:100 -> 86400000:120"));
}

void PolicyEditingTest::declinedReasonSavesNothing()
{
    editLimitUntilAsked("like", 60'000, 10, 5);
    answerReasonPrompt(m_page.get(), QString()); // cancel
    QTest::qWait(300);
    QCOMPARE(stored("like")->revision, qint64(1));
    QCOMPARE(stored("like")->windows.front().limit, qint64(10));
    QVERIFY(child<QPushButton>("saveButton")->isEnabled()); // the edit is still there to save
}

void PolicyEditingTest::severalWindowsForEveryAlgorithm_data()
{
    QTest::addColumn<int>("algorithm");
    for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::SlidingWindow,
                        Algorithm::TokenBucket})
        QTest::newRow(algorithmName(a).constData()) << int(a);
}

void PolicyEditingTest::severalWindowsForEveryAlgorithm()
{
    QFETCH(int, algorithm);
    openPage(0);
    const QByteArray action = "multi-" + algorithmCode(Algorithm(algorithm));
    child<QLineEdit>("actionLineEdit")->setText(QString::fromLatin1(action));
    auto* algorithms = child<QComboBox>("algorithmComboBox");
    algorithms->setCurrentIndex(algorithms->findData(algorithm));
    child<QLineEdit>("windowLineEdit")->setText(QStringLiteral("1m"));
    child<QSpinBox>("limitSpinBox")->setValue(10);
    auto* add = child<QPushButton>("addWindowButton");
    QVERIFY2(add->isEnabled(), algorithmName(Algorithm(algorithm)).constData());
    QTest::mouseClick(add, Qt::LeftButton);
    QTRY_VERIFY(child<QLineEdit>("window2LineEdit"));
    child<QLineEdit>("window2LineEdit")->setText(QStringLiteral("1h"));
    child<QSpinBox>("limit2SpinBox")->setValue(100);
    QTRY_VERIFY(child<QPushButton>("saveButton")->isEnabled());
    QTest::mouseClick(child<QPushButton>("saveButton"), Qt::LeftButton);
    QTRY_VERIFY(openReasonPrompt(m_page.get()));
    const QString shown = answerReasonPrompt(m_page.get(), QStringLiteral("two windows"));
    QVERIFY2(shown.contains(QStringLiteral("10 per 1m, 100 per 1h")), qPrintable(shown));

    QTRY_VERIFY(stored(action).ok());
    const Policy saved = *stored(action);
    QCOMPARE(int(saved.algorithm), algorithm);
    QCOMPARE(saved.windows.size(), size_t(2));
    QCOMPARE(saved.windows[1].limit, qint64(100));
    QCOMPARE(saved.windows[1].windowMs, qint64(3'600'000));
    // Loaded back, the form has both rows.
    QTRY_VERIFY(m_page->model()->rowOf(action) >= 0);
    m_page->editor()->startNew();
    select(action);
    QVERIFY(child<QLineEdit>("window2LineEdit"));
    QCOMPARE(child<QLineEdit>("window2LineEdit")->text(), QStringLiteral("1h"));
}

// A shadow policy in the editor: its box is ticked; unticked, the preview counts the subjects
// the enforced policy would deny now (a user past the limit, counted while in shadow), and the
// save is an ordinary revision whose audit entry names the change.
void PolicyEditingTest::shadowToEnforcedPreviewsAndSaves()
{
    Policy policy;
    policy.action = "like";
    policy.windows = {{2, 3'600'000}};
    policy.shadow = true;
    policy = save(policy);
    Limiter limiter = m_session->limiter();
    int answered = 0;
    for (const QByteArray user : {"amy", "amy", "amy", "ben"})
        limiter.hit(policy, user, 0, this, [&](Result<HitResult> hit) {
            QVERIFY(hit && hit->allowed && hit->shadow);
            ++answered;
        });
    QTRY_COMPARE(answered, 4);
    openPage(1);
    select("like");
    auto* shadow = child<QCheckBox>("shadowCheckBox");
    QVERIFY(shadow && shadow->isChecked());
    auto* preview = child<QLabel>("previewLabel");
    shadow->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(preview->text().startsWith(QStringLiteral("Switching to enforced:")),
                             5000);
    QTRY_VERIFY2_WITH_TIMEOUT(preview->text().contains(QStringLiteral("1 of the 2 current subjects")),
                              qPrintable(preview->text()), 5000);
    // The save asks whether to deny the current subject past the limit: yes.
    QString asked;
    Ask::setHook([&asked](const Ask::Question& question) {
        asked = question.text;
        return 1;
    });
    QTest::mouseClick(child<QPushButton>("saveButton"), Qt::LeftButton);
    QTRY_VERIFY(openReasonPrompt(m_page.get()));
    const QString shown = answerReasonPrompt(m_page.get(), QStringLiteral("rollout done"));
    QTRY_VERIFY(asked.contains(QStringLiteral("1 of the 2 current subjects")));
    Ask::setHook([](const Ask::Question&) { return 0; });
    QVERIFY2(shown.contains(QStringLiteral("Shadow (never denies): yes \u2192 no")), qPrintable(shown));
    QTRY_COMPARE(stored("like")->revision, qint64(2));
    QVERIFY(!stored("like")->shadow);
}

QTEST_MAIN(PolicyEditingTest)
#include "tst_PolicyEditing.moc"
