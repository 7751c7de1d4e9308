// Policies page against a real redis-server: an edit in the page takes effect on the next hit
// through the core, a concurrent save produces the conflict dialog, invalid input writes nothing.

#include "tests/gui/AnswerReasonPrompt.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/policies/PolicyEditor.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QTimeZone>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class PoliciesTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void editTakesEffectOnNextHit();
    void editsZoneCalendarAndFailureMode();
    void concurrentEditShowsConflict();
    void invalidInputWritesNothing_data();
    void invalidInputWritesNothing();
    void previewCountsDeniedSubjects();
    void conflictComparesEveryField();
    void revisionAndAuthorFitAt1600();
    void editorNoticesChangeUnderneath();
    void saveThatDeniesAsksFirst();
    void previewCountsBannedSubjectWithoutCounter();
    void previewFollowsNewSubjects();
    void modelPassesTester();
    void readOnlyProfileDisablesWrites();
    void screenshot();

private:
    std::unique_ptr<Session> makeSession(bool readOnly = false);
    Policy savePolicy(Policy policy, const QString& actor = QStringLiteral("core"));
    Result<Policy> storedPolicy(const QByteArray& action);
    HitResult hit(const Policy& policy, const QByteArray& user);
    PoliciesPage* openPage(int expectedRows);
    void selectAction(PoliciesPage* page, const QByteArray& action);

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<PoliciesPage> m_page;
    int m_answer = 2;
};

void PoliciesTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Ask::setHook([this](const Ask::Question&) { return m_answer; });
}

void PoliciesTest::init()
{
    QCOMPARE(m_redis.command({"FLUSHALL"}), QByteArray("+OK\r\n"));
    Ask::clearAsked();
    m_answer = 2;
    m_session = makeSession();
}

void PoliciesTest::cleanup()
{
    m_page.reset();
    m_session.reset();
}

std::unique_ptr<Session> PoliciesTest::makeSession(bool readOnly)
{
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    settings.readOnly = readOnly;
    settings.profileName = QStringLiteral("test");
    auto session = std::make_unique<Session>(settings);
    session->open();
    [&] { QTRY_VERIFY(session->state() == ConnectionState::Connected); }();
    return session;
}

Policy PoliciesTest::savePolicy(Policy policy, const QString& actor)
{
    std::optional<Result<qint64>> result;
    m_session->policies().save(policy, actor, this, [&](Result<qint64> r) { result = r; });
    [&] { QTRY_VERIFY(result.has_value()); }();
    if (!result || !*result)
        qFatal("saving the policy through the core failed");
    policy.revision = **result;
    return policy;
}

Result<Policy> PoliciesTest::storedPolicy(const QByteArray& action)
{
    std::optional<Result<Policy>> result;
    m_session->policies().get(action, this, [&](Result<Policy> r) { result = r; });
    [&] { QTRY_VERIFY(result.has_value()); }();
    return result ? *result : Result<Policy>(ErrorKind::Timeout, QStringLiteral("no answer"));
}

HitResult PoliciesTest::hit(const Policy& policy, const QByteArray& user)
{
    std::optional<Result<HitResult>> result;
    m_session->limiter().hit(policy, user, 0, this, [&](Result<HitResult> r) { result = r; });
    [&] { QTRY_VERIFY(result.has_value()); }();
    if (!result || !*result)
        qFatal("hit through the core failed");
    return **result;
}

PoliciesPage* PoliciesTest::openPage(int expectedRows)
{
    m_page = std::make_unique<PoliciesPage>(m_session.get());
    new test::AutoAnswerReasonPrompts(m_page.get(),
                                      QStringLiteral("policy test")); // every save asks
    m_page->resize(1280, 800);
    m_page->show();
    [&] { QTRY_COMPARE(m_page->model()->rowCount(), expectedRows); }();
    return m_page.get();
}

void PoliciesTest::selectAction(PoliciesPage* page, const QByteArray& action)
{
    auto* table = page->findChild<QTableView*>(QStringLiteral("policiesTableView"));
    QVERIFY(table);
    const int row = page->model()->rowOf(action);
    QVERIFY(row >= 0);
    table->selectRow(row);
    QCOMPARE(page->editor()->loadedAction(), action);
}

Policy fixedWindow(const QByteArray& action, qint64 limit, qint64 windowMs)
{
    Policy policy;
    policy.action = action;
    policy.windows = {{limit, windowMs}};
    return policy;
}

void PoliciesTest::editTakesEffectOnNextHit()
{
    savePolicy(fixedWindow("comment", 10, 60'000));
    PoliciesPage* page = openPage(1);
    selectAction(page, "comment");

    auto* limit = page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"));
    auto* save = page->findChild<QPushButton*>(QStringLiteral("saveButton"));
    QVERIFY(limit && save);
    QCOMPARE(limit->value(), 10);
    QCOMPARE(save->property("tollgateWrite").toInt(), int(Session::Write::EditPolicy));
    limit->setValue(2);
    QVERIFY(save->isEnabled());
    QTest::mouseClick(save, Qt::LeftButton);

    QTRY_COMPARE(storedPolicy("comment")->revision, qint64(2));
    const Policy stored = *storedPolicy("comment");
    QCOMPARE(stored.windows.front().limit, qint64(2));
    QCOMPARE(stored.updatedBy, QStringLiteral("tester"));
    QVERIFY(hit(stored, "alice").allowed);
    QVERIFY(hit(stored, "alice").allowed);
    const HitResult third = hit(stored, "alice");
    QVERIFY(!third.allowed);
    QCOMPARE(third.tier, Tier::Deny);
    // The table follows (reload after save / the policy event).
    QTRY_COMPARE(
        page->model()->data(page->model()->index(0, PoliciesModel::RevisionColumn)).toLongLong(),
        qint64(2));
}

void PoliciesTest::editsZoneCalendarAndFailureMode()
{
    Policy daily = fixedWindow("upload", 5, 86'400'000);
    daily.onError = FailureMode::FailOpen;
    savePolicy(daily);
    PoliciesPage* page = openPage(1);
    selectAction(page, "upload");

    auto* align = page->findChild<QComboBox*>(QStringLiteral("alignComboBox"));
    auto* zone = page->findChild<QComboBox*>(QStringLiteral("timeZoneComboBox"));
    auto* onError = page->findChild<QComboBox*>(QStringLiteral("onErrorComboBox"));
    auto* ban = page->findChild<QComboBox*>(QStringLiteral("banComboBox"));
    auto* save = page->findChild<QPushButton*>(QStringLiteral("saveButton"));
    QVERIFY(align && zone && onError && ban && save);
    // The loaded policy shows in the form; the zone only matters once something uses it.
    QCOMPARE(align->currentIndex(), 0);
    QCOMPARE(onError->currentData().toInt(), int(FailureMode::FailOpen));
    QVERIFY(!zone->isEnabled());

    align->setCurrentIndex(1); // on the local clock
    QVERIFY(zone->isEnabled());
    zone->setCurrentText(QStringLiteral("Europe/Nowhere"));
    QVERIFY(!save->isEnabled()); // an unknown zone is refused with its name
    auto* error = page->editor()->findChild<QLabel*>(QStringLiteral("errorLabel"));
    QVERIFY(error && error->text().contains(QStringLiteral("Europe/Nowhere")));
    zone->setCurrentText(QStringLiteral("Europe/Berlin"));
    onError->setCurrentIndex(onError->findData(int(FailureMode::FailClosed)));
    ban->setCurrentIndex(2); // until midnight
    QVERIFY(save->isEnabled());
    QTest::mouseClick(save, Qt::LeftButton);

    QTRY_COMPARE(storedPolicy("upload")->revision, qint64(2));
    const Policy stored = *storedPolicy("upload");
    QVERIFY(stored.calendarAligned);
    QCOMPARE(stored.timeZone, QByteArray("Europe/Berlin"));
    QCOMPARE(stored.onError, FailureMode::FailClosed);
    QVERIFY(stored.banUntilMidnight);
    // A calendar day resets at the next local midnight, not a day after the first hit.
    const HitResult first = hit(stored, "alice");
    const QDateTime now = QDateTime::currentDateTime().toTimeZone(QTimeZone("Europe/Berlin"));
    const QDateTime midnight(now.date().addDays(1), QTime(0, 0), QTimeZone("Europe/Berlin"));
    QVERIFY(qAbs(first.resetMs - now.msecsTo(midnight)) < 5000);

    // A sliding algorithm cannot be aligned to the clock: the form says so.
    auto* algorithm = page->findChild<QComboBox*>(QStringLiteral("algorithmComboBox"));
    algorithm->setCurrentIndex(algorithm->findData(int(Algorithm::TokenBucket)));
    QVERIFY(!save->isEnabled());
    QVERIFY(error->text().contains(QStringLiteral("calendar")));
    align->setCurrentIndex(0);
    QVERIFY(!align->isEnabled());
    QVERIFY(save->isEnabled());
}

void PoliciesTest::concurrentEditShowsConflict()
{
    const Policy original = savePolicy(fixedWindow("like", 10, 10'000));
    PoliciesPage* page = openPage(1);
    selectAction(page, "like");
    auto* limit = page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"));
    auto* save = page->findChild<QPushButton*>(QStringLiteral("saveButton"));
    limit->setValue(5);

    // Someone else saves first, behind the page's back.
    Policy theirs = original;
    theirs.windows = {{7, 10'000}};
    savePolicy(theirs, QStringLiteral("bob"));

    m_answer = 2; // Cancel
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(Ask::asked().size(), 1);
    const Ask::Question question = Ask::asked().first();
    QCOMPARE(question.kind, Ask::Kind::Choose);
    QCOMPARE(question.title, QStringLiteral("Policy changed"));
    QVERIFY2(question.text.contains(QStringLiteral("bob")), qPrintable(question.text));
    QVERIFY2(question.text.contains(QStringLiteral("revision 2")), qPrintable(question.text));
    QCOMPARE(question.choices,
             QStringList({QStringLiteral("Reload theirs"), QStringLiteral("Overwrite with mine"),
                          QStringLiteral("Cancel")}));
    QTRY_VERIFY(save->isEnabled());
    Policy stored = *storedPolicy("like");
    QCOMPARE(stored.revision, qint64(2));
    QCOMPARE(stored.windows.front().limit, qint64(7));
    QCOMPARE(stored.updatedBy, QStringLiteral("bob"));

    // Second attempt: overwrite with mine re-saves on the fresh revision.
    Ask::clearAsked();
    m_answer = 1;
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(storedPolicy("like")->revision, qint64(3));
    QCOMPARE(Ask::asked().size(), 1);
    stored = *storedPolicy("like");
    QCOMPARE(stored.windows.front().limit, qint64(5));
    QCOMPARE(stored.updatedBy, QStringLiteral("tester"));
}

void PoliciesTest::invalidInputWritesNothing_data()
{
    QTest::addColumn<QString>("window");
    QTest::addColumn<int>("limit");
    QTest::addColumn<int>("warn");
    QTest::addColumn<QString>("error");
    QTest::newRow("limit 0") << "30s" << 0 << 0 << "limit must be between 1";
    QTest::newRow("window abc") << "abc" << 10 << 0 << "window 'abc'";
    QTest::newRow("warn >= limit") << "30s" << 10 << 10 << "warn level must be below the limit";
}

void PoliciesTest::invalidInputWritesNothing()
{
    QFETCH(QString, window);
    QFETCH(int, limit);
    QFETCH(int, warn);
    QFETCH(QString, error);

    const Policy original = savePolicy(fixedWindow("upload", 100, 86'400'000));
    PoliciesPage* page = openPage(1);
    selectAction(page, "upload");
    auto* windowEdit = page->findChild<QLineEdit*>(QStringLiteral("windowLineEdit"));
    auto* limitBox = page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"));
    auto* warnBox = page->findChild<QSpinBox*>(QStringLiteral("warnSpinBox"));
    auto* errorLabel = page->findChild<QLabel*>(QStringLiteral("errorLabel"));
    auto* save = page->findChild<QPushButton*>(QStringLiteral("saveButton"));
    QVERIFY(windowEdit && limitBox && warnBox && errorLabel && save);
    QVERIFY(!save->isEnabled()); // nothing changed yet
    QVERIFY(errorLabel->text().isEmpty());

    windowEdit->setText(window);
    limitBox->setValue(limit);
    warnBox->setValue(warn);
    QVERIFY2(errorLabel->text().contains(error), qPrintable(errorLabel->text()));
    QVERIFY(!save->isEnabled());
    QTest::mouseClick(save, Qt::LeftButton);
    page->editor()->save(); // even called directly, nothing is sent
    QTest::qWait(200);
    QCOMPARE(storedPolicy("upload")->revision, original.revision);

    // A new policy with the same input is not written either.
    m_answer = 1; // Discard the invalid edit when New… asks
    page->findChild<QPushButton*>(QStringLiteral("newButton"))->click();
    page->findChild<QLineEdit*>(QStringLiteral("actionLineEdit"))->setText(QStringLiteral("fresh"));
    QVERIFY(save->isEnabled());
    windowEdit = page->findChild<QLineEdit*>(QStringLiteral("windowLineEdit"));
    windowEdit->setText(window);
    page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"))->setValue(limit);
    warnBox->setValue(warn);
    QVERIFY(!save->isEnabled());
    page->editor()->save();
    QTest::qWait(200);
    QCOMPARE(m_redis.command({"EXISTS", "tg:policy:fresh"}), QByteArray(":0\r\n"));
}

void PoliciesTest::previewCountsDeniedSubjects()
{
    const Policy policy = savePolicy(fixedWindow("view", 10, 60'000));
    for (int i = 0; i < 3; ++i)
        hit(policy, "heavy");
    hit(policy, "light");
    hit(policy, "heavy2");
    hit(policy, "heavy2");
    hit(policy, "heavy2");
    PoliciesPage* page = openPage(1);
    selectAction(page, "view");
    auto* preview = page->findChild<QLabel*>(QStringLiteral("previewLabel"));
    QTRY_VERIFY2(preview->text().contains(QStringLiteral("0 of the 3")),
                 qPrintable(preview->text()));
    page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"))->setValue(3);
    QTRY_VERIFY2(preview->text().contains(QStringLiteral("2 of the 3")),
                 qPrintable(preview->text()));
    page->findChild<QComboBox*>(QStringLiteral("algorithmComboBox"))
        ->setCurrentText(QStringLiteral("sliding_window"));
    QTRY_VERIFY2(preview->text().contains(QStringLiteral("0 of the 3")),
                 qPrintable(preview->text()));
}

void PoliciesTest::conflictComparesEveryField()
{
    Policy original = fixedWindow("like", 10, 10'000);
    original.banMs = 3'600'000;
    original.message = QStringLiteral("Slow down");
    original = savePolicy(original);
    PoliciesPage* page = openPage(1);
    selectAction(page, "like");
    page->findChild<QLineEdit*>(QStringLiteral("messageLineEdit"))
        ->setText(QStringLiteral("Easy!"));

    // Theirs: same limits, but the ban removed and the message dropped.
    Policy theirs = original;
    theirs.banMs = 0;
    theirs.message.clear();
    savePolicy(theirs, QStringLiteral("bob"));

    m_answer = 2; // Cancel
    QTest::mouseClick(page->findChild<QPushButton*>(QStringLiteral("saveButton")), Qt::LeftButton);
    QTRY_COMPARE(Ask::asked().size(), 1);
    const QString text = Ask::asked().first().text;
    QVERIFY2(text.contains(QStringLiteral("Ban: theirs no ban, yours ban 1h")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Deny message: theirs (none), yours \"Easy!\"")),
             qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("Limits:")), qPrintable(text)); // the same: not listed
    QVERIFY2(text.contains(QStringLiteral("other fields are the same")), qPrintable(text));
}

void PoliciesTest::revisionAndAuthorFitAt1600()
{
    Policy search = fixedWindow("search", 10, 60'000);
    search.windows = {{10, 60'000}, {100, 3'600'000}, {1000, 86'400'000}};
    search.banUntilMidnight = true;
    savePolicy(search, QStringLiteral("operator-with-a-long-name"));
    PoliciesPage* page = openPage(1);
    page->resize(1600 - 170, 900); // the window at 1600 minus the navigation
    auto* table = page->findChild<QTableView*>(QStringLiteral("policiesTableView"));
    QTRY_VERIFY(table->isVisible());
    QTest::qWait(50); // a layout pass
    for (int column : {int(PoliciesModel::RevisionColumn), int(PoliciesModel::UpdatedByColumn)}) {
        const int right = table->horizontalHeader()->sectionViewportPosition(column) +
                          table->horizontalHeader()->sectionSize(column);
        QVERIFY2(right <= table->viewport()->width(),
                 qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                                .arg(column)
                                .arg(right)
                                .arg(table->viewport()->width())));
    }
    QVERIFY(!table->horizontalScrollBar()->isVisible());
}

void PoliciesTest::editorNoticesChangeUnderneath()
{
    const Policy original = savePolicy(fixedWindow("share", 10, 60'000));
    PoliciesPage* page = openPage(1);
    selectAction(page, "share");
    // Reloading the form rebuilds its window rows: look the spin box up each time.
    auto limit = [page] { return page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox")); };
    auto* note = page->findChild<QLabel*>(QStringLiteral("changedUnderneathLabel"));
    QVERIFY(note);
    QVERIFY(!note->isVisible());

    // Untouched form: it follows the new version and says so.
    Policy theirs = original;
    theirs.windows = {{20, 60'000}};
    theirs = savePolicy(theirs, QStringLiteral("bob"));
    QTRY_COMPARE(limit()->value(), 20);
    QTRY_VERIFY(note->isVisible());
    QVERIFY2(note->text().contains(QStringLiteral("bob")), qPrintable(note->text()));
    QCOMPARE(page->editor()->loadedRevision(), theirs.revision);

    // Edited form: the edits stay, the note says it changed underneath them.
    limit()->setValue(7);
    Policy again = theirs;
    again.windows = {{30, 60'000}};
    savePolicy(again, QStringLiteral("carol"));
    QTRY_VERIFY2(note->text().contains(QStringLiteral("carol")) &&
                     note->text().contains(QStringLiteral("while you were editing")),
                 qPrintable(note->text()));
    QCOMPARE(limit()->value(), 7);
}

void PoliciesTest::saveThatDeniesAsksFirst()
{
    const Policy policy = savePolicy(fixedWindow("post", 10, 60'000));
    for (int i = 0; i < 4; ++i)
        hit(policy, "poster");
    hit(policy, "quiet");
    PoliciesPage* page = openPage(1);
    selectAction(page, "post");
    page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"))->setValue(3);
    auto* save = page->findChild<QPushButton*>(QStringLiteral("saveButton"));

    m_answer = 0; // "No"
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(Ask::asked().size(), 1);
    QCOMPARE(Ask::asked().first().kind, Ask::Kind::Confirm);
    QVERIFY2(Ask::asked().first().text.contains(QStringLiteral("1 of the 2 current subjects")),
             qPrintable(Ask::asked().first().text));
    QTest::qWait(200);
    QCOMPARE(storedPolicy("post")->windows.front().limit, qint64(10)); // declined: not saved

    Ask::clearAsked();
    m_answer = 1; // "Yes"
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_COMPARE(storedPolicy("post")->windows.front().limit, qint64(3));
    QCOMPARE(Ask::asked().size(), 1);
}

void PoliciesTest::previewCountsBannedSubjectWithoutCounter()
{
    // Limit then ban: after the window the counter is gone but the ban stands. The preview
    // must not call that "no current subjects".
    Policy policy = fixedWindow("vote", 2, 300);
    policy.banMs = 3'600'000;
    policy = savePolicy(policy);
    for (int i = 0; i < 3; ++i)
        hit(policy, "stuffer");
    QTRY_COMPARE(m_redis.command({"EXISTS", "tg:{stuffer}:vote:fw:300"}), QByteArray(":0\r\n"));
    QCOMPARE(m_redis.command({"EXISTS", "tg:{stuffer}:vote:ban"}), QByteArray(":1\r\n"));
    PoliciesPage* page = openPage(1);
    selectAction(page, "vote");
    auto* preview = page->findChild<QLabel*>(QStringLiteral("previewLabel"));
    QTRY_VERIFY2(preview->text().contains(QStringLiteral("1 of the 1")),
                 qPrintable(preview->text()));
    QVERIFY(!preview->text().contains(QStringLiteral("no current subjects")));
    QVERIFY(preview->text().contains(QStringLiteral("banned")));
}

void PoliciesTest::previewFollowsNewSubjects()
{
    const Policy policy = savePolicy(fixedWindow("poke", 2, 60'000));
    PoliciesPage* page = openPage(1);
    selectAction(page, "poke");
    auto* preview = page->findChild<QLabel*>(QStringLiteral("previewLabel"));
    QTRY_VERIFY2(preview->text().contains(QStringLiteral("no current subjects")),
                 qPrintable(preview->text()));
    // Someone reaches the limit while the form is open: the preview catches up by itself.
    hit(policy, "poker");
    hit(policy, "poker");
    QTRY_VERIFY2_WITH_TIMEOUT(preview->text().contains(QStringLiteral("1 of the 1")),
                              qPrintable(preview->text()), PolicyEditor::kPreviewRefreshMs + 5000);
}

void PoliciesTest::modelPassesTester()
{
    PoliciesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    savePolicy(fixedWindow("a", 1, 1000));
    Policy b = fixedWindow("b", 5, 1000);
    b.algorithm = Algorithm::TokenBucket;
    b.banMs = 3'600'000;
    b = savePolicy(b);
    std::vector<Policy> policies{*storedPolicy("a"), *storedPolicy("b")};
    model.setPolicies(policies);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(PoliciesModel::ColumnCount));
    QCOMPARE(model.data(model.index(1, PoliciesModel::BanColumn)).toString(),
             QStringLiteral("ban 1h"));
    QCOMPARE(model.data(model.index(1, PoliciesModel::AlgorithmColumn)).toString(),
             QStringLiteral("token_bucket"));
    model.setPolicies(policies); // same rows: dataChanged only
    model.setPolicies({policies[1]});
    QCOMPARE(model.rowCount(), 1);
    model.setPolicies({});
    QCOMPARE(model.rowCount(), 0);

    PoliciesPage* page = openPage(2);
    QAbstractItemModelTester pageTester(page->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
    page->reload();
    QSignalSpy reloaded(page, &PoliciesPage::reloaded);
    QTRY_COMPARE(reloaded.size(), 1);
}

void PoliciesTest::readOnlyProfileDisablesWrites()
{
    savePolicy(fixedWindow("comment", 10, 30'000));
    m_session = makeSession(true);
    PoliciesPage* page = openPage(1);
    selectAction(page, "comment");
    auto* save = page->findChild<QPushButton*>(QStringLiteral("saveButton"));
    auto* remove = page->findChild<QPushButton*>(QStringLiteral("deleteButton"));
    QVERIFY(!save->isEnabled());
    QVERIFY(!remove->isEnabled());
    QVERIFY(save->toolTip().contains(QStringLiteral("read-only")));
}

void PoliciesTest::screenshot()
{
    Policy comment = fixedWindow("comment", 10, 30'000);
    comment.message = QStringLiteral("Slow down, please");
    savePolicy(comment);
    Policy like = fixedWindow("like", 10, 10'000);
    like.banMs = 3'600'000;
    savePolicy(like);
    Policy api = fixedWindow("api", 60, 60'000);
    api.windows.push_back({1000, 3'600'000});
    api.windows.push_back({10000, 86'400'000});
    api.warn = 50;
    savePolicy(api);
    Policy tokens = fixedWindow("tokens", 100000, 60'000);
    tokens.algorithm = Algorithm::TokenBucket;
    tokens.cost = 10;
    savePolicy(tokens);
    for (int i = 0; i < 12; ++i)
        hit(comment, "user-" + QByteArray::number(i % 4));
    PoliciesPage* page = openPage(4);
    selectAction(page, "api");
    auto* preview = page->findChild<QLabel*>(QStringLiteral("previewLabel"));
    QTRY_VERIFY(preview->text().contains(QStringLiteral("current subjects")));
    QVERIFY(page->grab().save(QStringLiteral("/tmp/tollgate-policies.png")));
    selectAction(page, "comment");
    page->findChild<QSpinBox*>(QStringLiteral("limitSpinBox"))->setValue(2);
    page->findChild<QSpinBox*>(QStringLiteral("warnSpinBox"))->setValue(5);
    QTRY_VERIFY(preview->text().isEmpty());
    QTest::qWait(100); // the condition holds at once: let the new window row show itself
    QVERIFY(page->grab().save(QStringLiteral("/tmp/tollgate-policies-invalid.png")));
}

QTEST_MAIN(PoliciesTest)
#include "tst_Policies.moc"
