// Scripts survive what empties the server's script cache (SCRIPT FLUSH, a restart), and the
// client survives the server going away: fails fast while it is down, reconnects by itself.

#include "core/scripts/ScriptLibrary.h"
#include "core/scripts/ScriptRunner.h"
#include "tests/support/CoreFixture.h"

#include <QtTest>

using namespace tollgate;
using tollgate::test::await;
using tollgate::test::CoreFixture;
using tollgate::test::makePolicy;

class ScriptRecoveryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void reloadsAfterScriptFlush_data();
    void reloadsAfterScriptFlush();
    void reloadsAfterRestart();
    void failsFastWhileDown();

private:
    bool hitLoaded();

    CoreFixture m_core;
};

void ScriptRecoveryTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
}

void ScriptRecoveryTest::init()
{
    if (!m_core.server().isRunning())
        TOLLGATE_REQUIRE(m_core.server(), restart());
    QTRY_COMPARE_WITH_TIMEOUT(m_core.client()->state(), ConnectionState::Connected, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(m_core.inspect({"PING"}).ok(), 10000); // the inspector is back too
    TOLLGATE_REQUIRE(m_core, flush());
}

bool ScriptRecoveryTest::hitLoaded()
{
    const ScriptInfo* hit = ScriptLibrary::instance().find(QStringLiteral("hit"));
    if (!hit)
        return false;
    const auto exists = m_core.inspect({"SCRIPT", "EXISTS", hit->sha1});
    return exists && exists->elements.size() == 1 && exists->elements[0].integer == 1;
}

void ScriptRecoveryTest::reloadsAfterScriptFlush_data()
{
    QTest::addColumn<QString>("mode");
    QTest::newRow("SCRIPT FLUSH SYNC") << QStringLiteral("SYNC");
    QTest::newRow("SCRIPT FLUSH ASYNC") << QStringLiteral("ASYNC");
}

void ScriptRecoveryTest::reloadsAfterScriptFlush()
{
    QFETCH(QString, mode);
    const Policy policy = makePolicy("flush", 10, 60000);
    QVERIFY(m_core.hit(policy, "42")->allowed);
    QVERIFY(hitLoaded());

    QVERIFY(m_core.inspect({"SCRIPT", "FLUSH", mode.toLatin1()}).ok());
    QVERIFY(!hitLoaded());
    const auto hit = m_core.hit(policy, "42");
    QVERIFY2(hit.ok(), hit ? "" : qPrintable(hit.error().toString()));
    QCOMPARE(hit->count, qint64(2)); // retried once, counted once
    QVERIFY(hitLoaded());

    const auto loaded = await<QList<bool>>([&](QObject* context, Callback<QList<bool>> done) {
        scriptsLoaded(m_core.client(), context, std::move(done));
    });
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->size(), ScriptLibrary::instance().scripts().size());
}

void ScriptRecoveryTest::reloadsAfterRestart()
{
    const Policy policy = makePolicy("restart", 10, 60000);
    QVERIFY(m_core.hit(policy, "42")->allowed);

    QSignalSpy states(m_core.client(), &Client::stateChanged);
    m_core.server().kill();
    QTRY_VERIFY_WITH_TIMEOUT(m_core.client()->state() != ConnectionState::Connected, 5000);
    TOLLGATE_REQUIRE(m_core.server(), restart());
    QTRY_COMPARE_WITH_TIMEOUT(m_core.client()->state(), ConnectionState::Connected, 10000);
    QTRY_VERIFY(states.count() >= 2); // Reconnecting, then Connected again (queued signals)

    // A fresh server has no scripts (and no data: no persistence).
    QTRY_VERIFY_WITH_TIMEOUT(m_core.inspect({"PING"}).ok(), 10000);
    QVERIFY(!hitLoaded());
    const auto hit = m_core.hit(policy, "42");
    QVERIFY2(hit.ok(), hit ? "" : qPrintable(hit.error().toString()));
    QVERIFY(hit->allowed);
    QCOMPARE(hit->count, qint64(1));
    QVERIFY(hitLoaded());
}

void ScriptRecoveryTest::failsFastWhileDown()
{
    // A client with a long command timeout: failing fast must not mean "waiting for it".
    ConnectionOptions options = m_core.options();
    options.commandTimeout = std::chrono::milliseconds(5000);
    options.reconnectMinDelay = std::chrono::milliseconds(200);
    options.reconnectMaxDelay = std::chrono::milliseconds(1000);
    auto client = m_core.connect(options);
    QVERIFY2(client, qPrintable(m_core.errorString()));
    Limiter limiter(client.get(), m_core.schema());
    const Policy policy = makePolicy("down", 10, 60000);

    m_core.server().kill();
    QTRY_VERIFY_WITH_TIMEOUT(client->state() == ConnectionState::Reconnecting, 5000);

    for (int i = 0; i < 3; ++i) {
        QElapsedTimer clock;
        clock.start();
        const auto hit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
            limiter.hit(policy, "42", 0, context, std::move(done));
        });
        QVERIFY(!hit);
        QCOMPARE(hit.error().kind, ErrorKind::Closed);
        QVERIFY2(clock.elapsed() < 500, qPrintable(QString::number(clock.elapsed())));

        clock.restart();
        const auto ping = await<Reply>([&](QObject* context, Callback<Reply> done) {
            client->execute({"PING"}, context, std::move(done));
        });
        QVERIFY(!ping);
        QCOMPARE(ping.error().kind, ErrorKind::Closed);
        QVERIFY(clock.elapsed() < 500);
    }

    // Started again: the client comes back by itself and works.
    TOLLGATE_REQUIRE(m_core.server(), restart());
    QTRY_COMPARE_WITH_TIMEOUT(client->state(), ConnectionState::Connected, 10000);
    const auto hit = await<HitResult>([&](QObject* context, Callback<HitResult> done) {
        limiter.hit(policy, "42", 0, context, std::move(done));
    });
    QVERIFY2(hit.ok(), hit ? "" : qPrintable(hit.error().toString()));
    QVERIFY(hit->allowed);
}

QTEST_GUILESS_MAIN(ScriptRecoveryTest)
#include "tst_ScriptRecovery.moc"
