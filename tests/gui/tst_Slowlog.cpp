// The Slowlog page against a real redis-server that logs every command: Tollgate's scripts
// are named, the page writes nothing (no SLOWLOG RESET), and the filter keeps only scripts.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "ui/common/RowRoles.h"
#include "ui/common/Session.h"
#include "ui/slowlog/SlowlogModel.h"
#include "ui/slowlog/SlowlogPage.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLabel>
#include <QTableView>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class SlowlogTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void namesScriptsAndWritesNothing();
    void scriptRowsNameTheirFirstKey();

private:
    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
};

void SlowlogTest::initTestCase()
{
    // Log everything, so a hit is in the slow log whatever the machine's speed.
    TOLLGATE_REQUIRE(m_redis,
                     start({QStringLiteral("--slowlog-log-slower-than"), QStringLiteral("0")}));
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);
}

void SlowlogTest::cleanupTestCase()
{
    m_session.reset();
}

void SlowlogTest::namesScriptsAndWritesNothing()
{
    Policy policy;
    policy.action = "comment";
    policy.windows = {{10, 30'000}};
    std::optional<bool> hit;
    m_session->limiter().hit(policy, "alice", 0, this, [&](Result<HitResult> r) { hit = r.ok(); });
    QTRY_VERIFY(hit.has_value() && *hit);

    SlowlogPage page(m_session.get());
    QAbstractItemModelTester tester(page.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    page.resize(1024, 700);
    page.show();
    auto findScript = [&page](const QString& name) {
        for (const SlowlogEntry& entry : page.model()->entries())
            if (entry.script == name)
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(findScript(QStringLiteral("hit")), 10000);
    auto* view = page.findChild<QTableView*>(QStringLiteral("slowlogTableView"));
    QVERIFY(view);
    bool shown = false;
    for (int r = 0; r < view->model()->rowCount(); ++r)
        shown |= view->model()->index(r, SlowlogModel::ScriptColumn).data().toString() ==
                 QStringLiteral("hit.lua");
    QVERIFY(shown);
    auto* threshold = page.findChild<QLabel*>(QStringLiteral("thresholdLabel"));
    QTRY_VERIFY2(threshold->text().contains(QStringLiteral("slower than 0")),
                 qPrintable(threshold->text()));
    auto* status = page.findChild<QLabel*>(QStringLiteral("statusLabel"));
    QVERIFY2(status->text().contains(QStringLiteral("hit.lua")), qPrintable(status->text()));

    // Only scripts: every row left is one of ours.
    page.findChild<QCheckBox*>(QStringLiteral("onlyScriptsCheckBox"))->setChecked(true);
    QVERIFY(view->model()->rowCount() >= 1);
    for (int r = 0; r < view->model()->rowCount(); ++r)
        QVERIFY(view->model()
                    ->index(r, SlowlogModel::ScriptColumn)
                    .data()
                    .toString()
                    .endsWith(QStringLiteral(".lua")));

    // Read-only: no write buttons, and the server's log was never reset.
    for (QAbstractButton* button : page.findChildren<QAbstractButton*>())
        QVERIFY(!button->property("tollgateWrite").isValid());
    QSignalSpy refreshed(&page, &SlowlogPage::refreshed);
    QVERIFY(refreshed.wait(SlowlogPage::kPollMs + 3000)); // it polls while shown
    const QByteArray log = m_redis.command({"SLOWLOG", "GET", "1000"});
    QVERIFY(!log.contains("RESET") && !log.contains("reset"));
}

void SlowlogTest::scriptRowsNameTheirFirstKey()
{
    // What the right-click menu's "Open key" opens: a script's KEYS[1], nothing for a command
    // of another kind or a key the server cut short.
    SlowlogEntry script;
    script.script = QStringLiteral("hit");
    script.arguments = {"EVALSHA", "0123", "2", "tg:{alice}:ban", "tg:{alice}:comment:ban"};
    SlowlogEntry cut = script;
    cut.arguments[3] = "tg:{alice... (42 more bytes)";
    SlowlogEntry other;
    other.arguments = {"GET", "tg:{alice}:ban"};
    SlowlogModel model;
    model.setEntries({script, cut, other});
    QCOMPARE(model.index(0, SlowlogModel::TimeColumn).data(RowKeyRole).toByteArray(),
             QByteArray("tg:{alice}:ban"));
    QVERIFY(model.index(1, SlowlogModel::ArgumentsColumn).data(RowKeyRole).toByteArray().isEmpty());
    QVERIFY(model.index(2, SlowlogModel::ArgumentsColumn).data(RowKeyRole).toByteArray().isEmpty());
}

QTEST_MAIN(SlowlogTest)
#include "tst_Slowlog.moc"
