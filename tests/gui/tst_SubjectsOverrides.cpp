// The Subjects page's override marks against a real redis-server: overridden and exempt users
// are marked in the Ban / override column and counted in the summary from the override index
// (read once, joined in the model: a user's rows share one mark, rows without one have none);
// the state filter narrows to them on the worker; an override set or removed elsewhere shows
// after the event; the model passes QAbstractItemModelTester throughout.
#include "tests/gui/SubjectsPageFixture.h"
#include "tollgate/Limiter.h"
#include "tollgate/Overrides.h"
#include "ui/common/Session.h"
#include "ui/subjects/OverrideWatcher.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QtTest>
#include <memory>

using namespace tollgate;
using namespace tollgate::ui;

class tst_SubjectsOverrides : public test::SubjectsPageFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void marksJoinTheRows();
    void filterByOverride();
    void removedOverrideLeavesTheRows();

private:
    void setOverride(const OverrideRequest& request);
    QString banCell(const QByteArray& user, const QByteArray& action) const;
    QSet<QByteArray> shownUsers() const;
};

void tst_SubjectsOverrides::initTestCase()
{
    startServer(QStringLiteral("support-sam"));
    for (const QByteArray& action : {QByteArray("login"), QByteArray("search")}) {
        Policy policy;
        policy.action = action;
        policy.windows = {{5, 60'000}};
        savePolicy(policy);
    }
    // Plenty of ordinary rows, two users with overrides.
    for (int i = 0; i < 200; ++i)
        hit("user-" + QByteArray::number(i), i % 2 ? "login" : "search", 1);
    for (const QByteArray& user : {QByteArray("trial-co"), QByteArray("loadbot")})
        for (const QByteArray& action : {QByteArray("login"), QByteArray("search")})
            hit(user, action, 2);

    OverrideRequest trial;
    trial.user = "trial-co";
    trial.action = "search";
    trial.windows = {{10, 60'000}};
    trial.durationMs = 3'600'000;
    trial.actor = QStringLiteral("support-sam");
    trial.reason = QStringLiteral("trial");
    setOverride(trial);
    OverrideRequest exempt;
    exempt.user = "loadbot";
    exempt.action = "*";
    exempt.kind = OverrideKind::Unlimited;
    exempt.permanent = true;
    exempt.actor = QStringLiteral("support-sam");
    exempt.reason = QStringLiteral("load test");
    setOverride(exempt);

    showPage(1024, 700);
}

void tst_SubjectsOverrides::cleanupTestCase()
{
    stopFixture();
}

void tst_SubjectsOverrides::setOverride(const OverrideRequest& request)
{
    std::optional<Result<Override>> stored;
    m_session->overrides().set(request, this, [&](Result<Override> r) { stored = r; });
    QTRY_VERIFY(stored.has_value());
    QVERIFY2(stored->ok(), qPrintable(stored->ok() ? QString() : stored->error().toString()));
}

QString tst_SubjectsOverrides::banCell(const QByteArray& user, const QByteArray& action) const
{
    const int row = m_page->model()->viewRowOf(user, action);
    return row < 0 ? QStringLiteral("<no row>")
                   : m_page->model()->index(row, SubjectsModel::Ban).data().toString();
}

QSet<QByteArray> tst_SubjectsOverrides::shownUsers() const
{
    QSet<QByteArray> users;
    for (int row = 0; row < m_page->model()->rowCount(); ++row)
        users << m_page->model()->userAt(row);
    return users;
}

void tst_SubjectsOverrides::marksJoinTheRows()
{
    SubjectsModel* model = m_page->model();
    QTRY_VERIFY_WITH_TIMEOUT(model->viewRowOf("loadbot", "search") >= 0 &&
                                 model->viewRowOf("trial-co", "login") >= 0,
                             10000);
    QTRY_VERIFY(banCell("trial-co", "search").startsWith(QStringLiteral("override until")));
    const int trialRow = model->viewRowOf("trial-co", "search");
    QVERIFY(model->index(trialRow, SubjectsModel::Ban)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("10 per 1m\nby support-sam: trial")));
    QCOMPARE(banCell("trial-co", "login"), QString()); // the override is for search only
    QVERIFY(banCell("loadbot", "login").startsWith(QStringLiteral("exempt permanently")));
    QVERIFY(banCell("loadbot", "search").startsWith(QStringLiteral("exempt permanently")));
    QCOMPARE(banCell("user-1", "login"), QString());
    const QModelIndex exemptRow = model->index(model->viewRowOf("loadbot", "login"), 0);
    QCOMPARE(exemptRow.data(SubjectsModel::OverrideRole).toInt(), int(OverrideKind::Unlimited));
    QCOMPARE(model->index(model->viewRowOf("user-1", "login"), 0)
                 .data(SubjectsModel::OverrideRole)
                 .toInt(),
             -1);
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("summaryLabel"));
    QTRY_VERIFY2(summary->text().contains(QStringLiteral("users overridden: 1, exempt: 1")),
                 qPrintable(summary->text()));
}

void tst_SubjectsOverrides::filterByOverride()
{
    SubjectsModel* model = m_page->model();
    QTRY_VERIFY(model->viewRowOf("loadbot", "search") >= 0);
    const int all = model->rowCount();
    auto* state = m_page->findChild<QComboBox*>(QStringLiteral("stateComboBox"));
    state->setCurrentIndex(state->findData(int(SubjectFilter::State::Overridden)));
    QTRY_COMPARE(model->rowCount(), 1);
    QCOMPARE(model->keyAt(0), SubjectKey("trial-co", "search"));
    state->setCurrentIndex(state->findData(int(SubjectFilter::State::Exempt)));
    QTRY_COMPARE(model->rowCount(), 2);
    QCOMPARE(shownUsers(), QSet<QByteArray>{"loadbot"});
    state->setCurrentIndex(0);
    QTRY_COMPARE(model->rowCount(), all);
}

void tst_SubjectsOverrides::removedOverrideLeavesTheRows()
{
    SubjectsModel* model = m_page->model();
    auto* state = m_page->findChild<QComboBox*>(QStringLiteral("stateComboBox"));
    state->setCurrentIndex(state->findData(int(SubjectFilter::State::Exempt)));
    QTRY_COMPARE(model->rowCount(), 2);
    std::optional<Result<bool>> removed;
    m_session->overrides().remove("loadbot", "*", QStringLiteral("support-sam"),
                                  QStringLiteral("test over"), this,
                                  [&](Result<bool> r) { removed = r; });
    QTRY_VERIFY(removed.has_value() && removed->ok() && removed->value());
    // The override event makes the watcher read the index again; the filter runs again.
    QTRY_COMPARE(model->rowCount(), 0);
    state->setCurrentIndex(0);
    QTRY_VERIFY(model->rowCount() > 0);
    QCOMPARE(banCell("loadbot", "login"), QString());
}

QTEST_MAIN(tst_SubjectsOverrides)
#include "tst_SubjectsOverrides.moc"
