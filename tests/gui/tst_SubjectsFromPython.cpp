// A subject counted by the Python client (clients/python, over the same assembled scripts) is a
// subject like any other: `tollgatectl subjects` lists it with its count, and the console's
// Subjects page shows its row next to one counted by the C++ library.
#include "tests/gui/SubjectsPageFixture.h"
#include "tests/support/CliRunner.h"
#include "tests/support/TestEnv.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;
using namespace tollgate::ui;

class tst_SubjectsFromPython : public SubjectsPageFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void pythonSubjectIsListedAndShown();

private:
    // The package as a wheel would install it: its sources with the build's scripts in lua/.
    bool installPackage(QString* why);
    QByteArray hitFromPython(const QByteArray& user, int times, QString* why);

    QTemporaryDir m_site;
};

bool tst_SubjectsFromPython::installPackage(QString* why)
{
    const QString target = m_site.filePath(QStringLiteral("tollgate"));
    QProcess copy;
    copy.start(QStringLiteral("cp"),
               {QStringLiteral("-r"), sourcePath(QStringLiteral("clients/python/src/tollgate")), target});
    if (!copy.waitForFinished(30'000) || copy.exitCode() != 0) {
        *why = QString::fromUtf8(copy.readAllStandardError());
        return false;
    }
    // This build's scripts, whatever a package.sh of another build left in the sources.
    const QDir scripts(luaScriptDir());
    QDir(QDir(target).filePath(QStringLiteral("lua"))).removeRecursively();
    QDir(target).mkpath(QStringLiteral("lua"));
    for (const QString& name : scripts.entryList({QStringLiteral("*.lua")}, QDir::Files)) {
        if (!QFile::copy(scripts.filePath(name), QDir(target).filePath(QStringLiteral("lua/") + name))) {
            *why = QStringLiteral("cannot copy ") + name;
            return false;
        }
    }
    return true;
}

QByteArray tst_SubjectsFromPython::hitFromPython(const QByteArray& user, int times, QString* why)
{
    // Debian's interpreter, which has redis-py (scripts/setup.sh).
    QProcess python;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHONPATH"), m_site.path());
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    python.setProcessEnvironment(env);
    python.start(QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral("-c"),
                  QStringLiteral("import sys, redis, tollgate\n"
                                 "limiter = tollgate.Limiter(redis.Redis(port=%1), prefix='tg')\n"
                                 "for _ in range(%2):\n"
                                 "    decision = limiter.hit('comment', sys.argv[1])\n"
                                 "print(decision.count, decision.remaining)\n"
                                 "limiter.close()\n")
                      .arg(m_redis.port())
                      .arg(times),
                  QString::fromUtf8(user)});
    if (!python.waitForFinished(60'000) || python.exitCode() != 0) {
        *why = QString::fromUtf8(python.readAllStandardError());
        return {};
    }
    return python.readAllStandardOutput().trimmed();
}

void tst_SubjectsFromPython::initTestCase()
{
    startServer(QStringLiteral("tester"));
    Policy comment;
    comment.action = "comment";
    comment.windows = {{10, 60'000}};
    savePolicy(comment);
    QString why;
    QVERIFY2(installPackage(&why), qPrintable(why));
}

void tst_SubjectsFromPython::cleanupTestCase()
{
    stopFixture();
}

void tst_SubjectsFromPython::pythonSubjectIsListedAndShown()
{
    QString why;
    QCOMPARE(hitFromPython("from-python", 3, &why), QByteArray("3 7"));
    QVERIFY2(why.isEmpty(), qPrintable(why));
    hit("from-cpp", "comment", 2);

    const CliRun listed =
        runCli(tollgatectlPath(), m_redis.url(), {QStringLiteral("subjects"), QStringLiteral("--json")});
    QVERIFY2(listed.code == 0, qPrintable(listed.describe()));
    const QJsonArray rows = listed.lines(); // sorted by user
    QCOMPARE(rows.size(), 2);
    const QJsonObject python = rows.at(1).toObject();
    QCOMPARE(python.value(QStringLiteral("user")).toString(), QStringLiteral("from-python"));
    QCOMPARE(python.value(QStringLiteral("action")).toString(), QStringLiteral("comment"));
    QCOMPARE(python.value(QStringLiteral("count")).toInt(), 3);
    QCOMPARE(python.value(QStringLiteral("remaining")).toInt(), 7);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("count")).toInt(), 2);

    // The console's Subjects page: the Python client's row beside the C++ library's.
    showPage(1280, 800);
    QTRY_VERIFY_WITH_TIMEOUT(viewRow("from-python", "comment") >= 0 && viewRow("from-cpp", "comment") >= 0,
                             10'000);
    QCOMPARE(m_page->model()->rowCount(), 2);
    QCOMPARE(cell("from-python", "comment", SubjectsModel::User).toString(), QStringLiteral("from-python"));
    QCOMPARE(cell("from-python", "comment", SubjectsModel::Count).toString(), QStringLiteral("3 / 10"));
    QCOMPARE(cell("from-python", "comment", SubjectsModel::Remaining).toLongLong(), 7);
    QCOMPARE(cell("from-cpp", "comment", SubjectsModel::Count).toString(), QStringLiteral("2 / 10"));
}

QTEST_MAIN(tst_SubjectsFromPython)
#include "tst_SubjectsFromPython.moc"
