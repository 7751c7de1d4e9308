// tollgatectl when things go wrong, end to end: a stopped server with --on-error, the cause of a
// failed connection, simulate when its server dies, and secrets (never printed, a warning for a
// password on the command line, the password from the environment or a no-echo prompt).
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using tollgate::test::RedisServer;

namespace {

struct Run
{
    int code = -1;
    QByteArray out;
    QByteArray err;

    QJsonObject object() const { return QJsonDocument::fromJson(out).object(); }
    QString describe() const
    {
        return QStringLiteral("exit %1, stdout: %2, stderr: %3")
            .arg(code)
            .arg(QString::fromUtf8(out.trimmed()), QString::fromUtf8(err.trimmed()));
    }
};

const QByteArray kSecret = "Sesame-7391";

} // namespace

class tst_CliFailures : public QObject
{
    Q_OBJECT

private:
    // Runs tollgatectl with TOLLGATE_URL = url (unless empty) and extra environment.
    Run ctl(const QList<QByteArray>& args, const QString& url,
            const QList<QPair<QString, QString>>& env = {}, const QByteArray& input = {});

    QString m_binary;

private Q_SLOTS:
    void initTestCase();
    void onErrorWithServerStopped();
    void backToRedisAfterRestart();
    void connectionErrorsNameTheirCause();
    void simulateStopsWhenTheServerDies();
    void badUrlNeverPrintsThePassword_data();
    void badUrlNeverPrintsThePassword();
    void passwordOnCommandLineIsWarnedAbout();
    void passwordFromEnvironment_data();
    void passwordFromEnvironment();
    void askpassReadsStdin();
    void askpassDoesNotEchoOnATerminal();
};

void tst_CliFailures::initTestCase()
{
    m_binary = qEnvironmentVariable("TOLLGATECTL", QCoreApplication::applicationDirPath() +
                                                       QStringLiteral("/../app/tollgatectl"));
    if (!QFileInfo(m_binary).isExecutable())
        QFAIL(qPrintable(QStringLiteral("tollgatectl not found at %1").arg(m_binary)));
}

Run tst_CliFailures::ctl(const QList<QByteArray>& args, const QString& url,
                         const QList<QPair<QString, QString>>& env, const QByteArray& input)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"TOLLGATE_URL", "TOLLGATE_PASSWORD", "REDISCLI_AUTH"})
        environment.remove(QString::fromLatin1(name));
    if (!url.isEmpty())
        environment.insert(QStringLiteral("TOLLGATE_URL"), url);
    for (const auto& [name, value] : env)
        environment.insert(name, value);
    process.setProcessEnvironment(environment);
    QStringList arguments{QStringLiteral("--actor"), QStringLiteral("tester")};
    for (const QByteArray& arg : args)
        arguments << QString::fromUtf8(arg);
    process.start(m_binary, arguments);
    process.write(input);
    process.closeWriteChannel();
    Run run;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

void tst_CliFailures::onErrorWithServerStopped()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    const QString url = redis.url();
    redis.stop();

    Run open = ctl({"hit", "like", "42", "--on-error", "allow", "--json"}, url);
    QVERIFY2(open.code == 0, qPrintable(open.describe()));
    QCOMPARE(open.object().value(QStringLiteral("decided_by")).toString(), QStringLiteral("fail_open"));
    QVERIFY(open.object().value(QStringLiteral("allowed")).toBool());
    QVERIFY2(open.err.contains("refused"), qPrintable(open.describe())); // said, on stderr

    Run closed = ctl({"hit", "like", "42", "--on-error", "deny", "--json"}, url);
    QVERIFY2(closed.code == 1, qPrintable(closed.describe()));
    QCOMPARE(closed.object().value(QStringLiteral("decided_by")).toString(),
             QStringLiteral("fail_closed"));

    Run reported = ctl({"hit", "like", "42"}, url);
    QVERIFY2(reported.code == 3, qPrintable(reported.describe()));

    Run insurance = ctl({"hit", "like", "42", "--on-error", "insurance"}, url);
    QVERIFY2(insurance.code == 2, qPrintable(insurance.describe()));
    Run bad = ctl({"peek", "like", "42", "--on-error", "maybe"}, url);
    QVERIFY2(bad.code == 2, qPrintable(bad.describe()));
}

void tst_CliFailures::backToRedisAfterRestart()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    QVERIFY(ctl({"policy", "set", "like", "--limit", "5", "--window", "1m"}, redis.url()).code == 0);
    redis.stop();
    Run down = ctl({"hit", "like", "42", "--on-error", "deny", "--json"}, redis.url());
    QCOMPARE(down.object().value(QStringLiteral("decided_by")).toString(),
             QStringLiteral("fail_closed"));
    QVERIFY(redis.restart());
    // The test server keeps nothing on disk: the policy is saved again.
    QVERIFY(ctl({"policy", "set", "like", "--limit", "5", "--window", "1m"}, redis.url()).code == 0);
    Run up = ctl({"hit", "like", "42", "--on-error", "deny", "--json"}, redis.url());
    QVERIFY2(up.code == 0, qPrintable(up.describe()));
    QCOMPARE(up.object().value(QStringLiteral("decided_by")).toString(), QStringLiteral("redis"));
    QCOMPARE(up.object().value(QStringLiteral("count")).toInt(), 1);
}

void tst_CliFailures::connectionErrorsNameTheirCause()
{
    Run ca = ctl({"policy", "list"}, QStringLiteral("rediss://127.0.0.1:1?ca=/nonexistent/ca.pem"));
    QVERIFY2(ca.code == 3, qPrintable(ca.describe()));
    QVERIFY2(ca.err.contains("cannot read CA file /nonexistent/ca.pem"), qPrintable(ca.describe()));
    QVERIFY2(!ca.err.contains("not connected"), qPrintable(ca.describe()));

    Run local = ctl({"policy", "list"}, QStringLiteral("unix:///nonexistent/redis.sock"));
    QVERIFY2(local.code == 3, qPrintable(local.describe()));
    QVERIFY2(local.err.contains("/nonexistent/redis.sock"), qPrintable(local.describe()));
    QVERIFY2(!local.err.contains("not connected"), qPrintable(local.describe()));
}

void tst_CliFailures::simulateStopsWhenTheServerDies()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start());
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), redis.url());
    process.setProcessEnvironment(env);
    process.start(m_binary, {QStringLiteral("simulate"), QStringLiteral("--seconds"),
                            QStringLiteral("0")}); // until interrupted
    QVERIFY(process.waitForStarted());
    // Running: its example policies are saved and hits are counted.
    QTRY_VERIFY_WITH_TIMEOUT(redis.command({"EXISTS", "tg:policy:like"}) == ":1\r\n", 20000);
    redis.kill();
    QVERIFY2(process.waitForFinished(30'000), "simulate kept running after its server died");
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 3);
    QVERIFY(!process.readAllStandardError().isEmpty());
}

void tst_CliFailures::badUrlNeverPrintsThePassword_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("port out of range") << QStringLiteral("redis://alice:%1@127.0.0.1:99999").arg(QLatin1String(kSecret));
    QTest::newRow("bad database") << QStringLiteral("redis://alice:%1@127.0.0.1/x").arg(QLatin1String(kSecret));
    QTest::newRow("legacy password only") << QStringLiteral("redis://%1@127.0.0.1:99999").arg(QLatin1String(kSecret));
    QTest::newRow("unknown scheme") << QStringLiteral("http://:%1@127.0.0.1").arg(QLatin1String(kSecret));
    QTest::newRow("no host") << QStringLiteral("redis://u:%1@/0").arg(QLatin1String(kSecret));
}

void tst_CliFailures::badUrlNeverPrintsThePassword()
{
    QFETCH(QString, url);
    for (bool onCommandLine : {true, false}) {
        const Run run = onCommandLine ? ctl({"--url", url.toUtf8(), "policy", "list"}, {})
                                      : ctl({"policy", "list"}, url);
        QVERIFY2(run.code == 2, qPrintable(run.describe()));
        QVERIFY2(!run.err.contains(kSecret) && !run.out.contains(kSecret), qPrintable(run.describe()));
        // Where the message quotes the URL, the password is masked.
        QVERIFY2(!run.err.contains("@127.0.0.1") || run.err.contains("***"), qPrintable(run.describe()));
    }
}

void tst_CliFailures::passwordOnCommandLineIsWarnedAbout()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start({QStringLiteral("--requirepass"), QString::fromLatin1(kSecret)}));
    const QString url = QStringLiteral("redis://:%1@127.0.0.1:%2").arg(QLatin1String(kSecret)).arg(redis.port());
    Run warned = ctl({"--url", url.toUtf8(), "policy", "list"}, {});
    QVERIFY2(warned.code == 0, qPrintable(warned.describe()));
    QVERIFY2(warned.err.contains("warning") && warned.err.contains("TOLLGATE_PASSWORD"),
             qPrintable(warned.describe()));
    QVERIFY(!warned.err.contains(kSecret));
    Run quiet = ctl({"--no-auth-warning", "--url", url.toUtf8(), "policy", "list"}, {});
    QVERIFY2(quiet.code == 0 && quiet.err.isEmpty(), qPrintable(quiet.describe()));
    // The environment is not visible to other users: no warning there.
    Run fromEnv = ctl({"policy", "list"}, url);
    QVERIFY2(fromEnv.code == 0 && fromEnv.err.isEmpty(), qPrintable(fromEnv.describe()));
}

void tst_CliFailures::passwordFromEnvironment_data()
{
    QTest::addColumn<QString>("variable");
    QTest::newRow("TOLLGATE_PASSWORD") << QStringLiteral("TOLLGATE_PASSWORD");
    QTest::newRow("REDISCLI_AUTH") << QStringLiteral("REDISCLI_AUTH");
}

void tst_CliFailures::passwordFromEnvironment()
{
    QFETCH(QString, variable);
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start({QStringLiteral("--requirepass"), QString::fromLatin1(kSecret)}));
    Run without = ctl({"policy", "list"}, redis.url());
    QVERIFY2(without.code == 3, qPrintable(without.describe()));
    Run with = ctl({"policy", "list"}, redis.url(), {{variable, QString::fromLatin1(kSecret)}});
    QVERIFY2(with.code == 0 && with.err.isEmpty(), qPrintable(with.describe()));
}

void tst_CliFailures::askpassReadsStdin()
{
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start({QStringLiteral("--requirepass"), QString::fromLatin1(kSecret)}));
    Run run = ctl({"--askpass", "policy", "list"}, redis.url(), {}, kSecret + "\n");
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QVERIFY(!run.out.contains(kSecret) && !run.err.contains(kSecret));
    Run none = ctl({"--askpass", "policy", "list"}, redis.url(), {}, {});
    QVERIFY2(none.code == 2, qPrintable(none.describe()));
}

void tst_CliFailures::askpassDoesNotEchoOnATerminal()
{
    // script(1) gives tollgatectl a pseudo-terminal; what the terminal shows comes back on
    // script's stdout. The password is typed only once the prompt is there.
    const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
    if (script.isEmpty())
        QSKIP("script(1) (util-linux) is not installed");
    RedisServer redis;
    TOLLGATE_REQUIRE(redis, start({QStringLiteral("--requirepass"), QString::fromLatin1(kSecret)}));
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TOLLGATE_URL"), redis.url());
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(script, {QStringLiteral("-qec"),
                           m_binary + QStringLiteral(" --askpass policy list --json"),
                           QStringLiteral("/dev/null")});
    QVERIFY(process.waitForStarted());
    QByteArray screen;
    QTRY_VERIFY_WITH_TIMEOUT((screen += process.readAll()).contains("Password:"), 20000);
    process.write(kSecret + "\n");
    QVERIFY(process.waitForFinished(30'000));
    screen += process.readAll();
    QCOMPARE(process.exitCode(), 0);
    QVERIFY2(!screen.contains(kSecret), screen.constData());
    QVERIFY2(screen.contains("[]"), screen.constData()); // the command ran, authenticated
}

QTEST_GUILESS_MAIN(tst_CliFailures)
#include "tst_CliFailures.moc"
