// The console's own load on Redis, in the real window against a real redis-server: the status
// bar shows the commands the console sends each second; a page's background passes (the
// Subjects sweep, the dashboard's ban count and near-limit sweep) run only while it is shown.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/CommandRateLabel.h"
#include "ui/common/Session.h"
#include "ui/connection/ProfileStore.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/dashboard/StatsSampler.h"
#include "ui/shell/MainWindow.h"
#include "ui/subjects/SubjectsLoader.h"
#include "ui/subjects/SubjectsPage.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class tst_ConsoleLoad : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void statusBarShowsTheLoad();
    void subjectsSweepOnlyWhileShown();
    void dashboardPassesOnlyWhileShown();

private:
    RedisServer m_redis;
    QTemporaryDir m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
    std::unique_ptr<MainWindow> m_window;
};

void tst_ConsoleLoad::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    // A few subjects, so every pass has something to read.
    for (int i = 0; i < 50; ++i)
        m_redis.command(
            {"SET", "tg:{u" + QByteArray::number(i) + "}:like:fw:60000", "3", "PX", "600000"});
    m_profiles = std::make_unique<ProfileStore>(std::make_unique<QSettings>(
        m_dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
    m_window = std::make_unique<MainWindow>(m_profiles.get());
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    m_window->setSession(std::make_unique<Session>(settings));
    m_window->resize(1024, 700);
    m_window->show();
    QTRY_VERIFY(m_window->session()->state() == ConnectionState::Connected);
    Policy like;
    like.action = "like";
    like.windows = {{10, 60'000}};
    std::optional<bool> saved;
    m_window->session()->policies().save(like, QStringLiteral("tester"), this,
                                         [&saved](Result<qint64> r) { saved = r.ok(); });
    QTRY_VERIFY(saved.has_value() && *saved);
}

void tst_ConsoleLoad::cleanupTestCase()
{
    m_window.reset();
    m_profiles.reset();
}

void tst_ConsoleLoad::statusBarShowsTheLoad()
{
    auto* label =
        m_window->statusBar()->findChild<CommandRateLabel*>(QStringLiteral("commandRateLabel"));
    QVERIFY(label);
    // The dashboard samples every second (TIME, HMGET, INFO at least): a load above 0.
    m_window->showPage(QStringLiteral("dashboard"));
    QTRY_VERIFY_WITH_TIMEOUT(label->rate() > 0, 10'000);
    QVERIFY2(label->text().contains(QStringLiteral("commands/s")), qPrintable(label->text()));
    QVERIFY2(label->text().contains(QLocale().toString(label->rate())), qPrintable(label->text()));
}

void tst_ConsoleLoad::subjectsSweepOnlyWhileShown()
{
    auto* page = qobject_cast<SubjectsPage*>(m_window->page(QStringLiteral("subjects")));
    QVERIFY(page);
    SubjectsLoader* loader = page->loader();
    SubjectsLoader::Options options = loader->options();
    options.sweepRest = std::chrono::milliseconds(100);
    loader->setOptions(options);
    QSignalSpy passes(loader, &SubjectsLoader::passStarted);
    m_window->showPage(QStringLiteral("subjects"));
    QTRY_VERIFY_WITH_TIMEOUT(loader->firstPassDone(), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(passes.count() >= 3, 10'000); // the first pass, then sweeps

    m_window->showPage(QStringLiteral("policies"));
    QVERIFY(!loader->isRunning()); // the running sweep was dropped
    passes.clear();
    QTest::qWait(1000); // ten rests: no sweep starts while hidden
    QCOMPARE(passes.count(), 0);

    m_window->showPage(QStringLiteral("subjects"));
    QTRY_VERIFY_WITH_TIMEOUT(passes.count() >= 1, 10'000);
}

void tst_ConsoleLoad::dashboardPassesOnlyWhileShown()
{
    auto* page = qobject_cast<DashboardPage*>(m_window->page(QStringLiteral("dashboard")));
    QVERIFY(page);
    StatsSampler* sampler = page->sampler();
    StatsSampler::Options options = sampler->options();
    options.bans.rest = std::chrono::milliseconds(100);
    options.sweep.rest = std::chrono::milliseconds(100);
    m_window->showPage(QStringLiteral("policies"));
    sampler->setOptions(options);
    QSignalSpy bans(sampler->banCounter(), &BanCounter::updated);
    QSignalSpy sweeps(sampler->sweep(), &NearLimitSweep::updated);
    m_window->showPage(QStringLiteral("dashboard"));
    QVERIFY(sampler->isActive());
    QTRY_VERIFY_WITH_TIMEOUT(bans.count() >= 2 && sweeps.count() >= 2, 10'000);

    m_window->showPage(QStringLiteral("policies"));
    QVERIFY(!sampler->isActive());
    QTest::qWait(300); // what was already answered arrives
    bans.clear();
    sweeps.clear();
    QTest::qWait(1000); // ten rests of each: nothing runs while hidden
    QCOMPARE(bans.count(), 0);
    QCOMPARE(sweeps.count(), 0);
}

QTEST_MAIN(tst_ConsoleLoad)
#include "tst_ConsoleLoad.moc"
