// A subject counted by the Python client (clients/python, over the same assembled scripts) is a
// subject like any other: `tollgatectl subjects` lists it with its count, and core's Subjects,
// the one implementation the console's Subjects page loads its rows from, reads it next to one
// counted by the C++ library.
#include "core/subjects/Subjects.h"
#include "tests/support/CliRunner.h"
#include "tests/support/CoreFixture.h"
#include "tests/support/TestEnv.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::test;

class SubjectsFromPythonTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void pythonSubjectIsListedLikeAnyOther();

private:
    // The package as a wheel would install it: its sources with the build's scripts in lua/.
    bool installPackage(QString* why);
    QByteArray hitFromPython(const QByteArray& user, int times, QString* why);

    CoreFixture m_core;
    QTemporaryDir m_site;
    Policy m_comment = makePolicy("comment", 10, 60'000);
};

bool SubjectsFromPythonTest::installPackage(QString* why)
{
    const QString target = m_site.filePath(QStringLiteral("tollgate"));
    QProcess copy;
    copy.start(QStringLiteral("cp"), {QStringLiteral("-r"), sourcePath(QStringLiteral("clients/python/src/tollgate")), target});
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

QByteArray SubjectsFromPythonTest::hitFromPython(const QByteArray& user, int times, QString* why)
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
                      .arg(m_core.server().port())
                      .arg(times),
                  QString::fromUtf8(user)});
    if (!python.waitForFinished(60'000) || python.exitCode() != 0) {
        *why = QString::fromUtf8(python.readAllStandardError());
        return {};
    }
    return python.readAllStandardOutput().trimmed();
}

void SubjectsFromPythonTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_core, start());
    auto saved = m_core.save(m_comment);
    QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
    m_comment.revision = *saved;
    QString why;
    QVERIFY2(installPackage(&why), qPrintable(why));
}

void SubjectsFromPythonTest::pythonSubjectIsListedLikeAnyOther()
{
    QString why;
    QCOMPARE(hitFromPython("from-python", 3, &why), QByteArray("3 7"));
    QVERIFY2(why.isEmpty(), qPrintable(why));
    for (int i = 0; i < 2; ++i)
        QVERIFY(m_core.hit(m_comment, "from-cpp"));

    const CliRun listed = runCli(tollgatectlPath(), m_core.server().url(), {QStringLiteral("subjects"), QStringLiteral("--json")});
    QVERIFY2(listed.code == 0, qPrintable(listed.describe()));
    const QJsonArray rows = listed.lines(); // sorted by user
    QCOMPARE(rows.size(), 2);
    const QJsonObject python = rows.at(1).toObject();
    QCOMPARE(python.value(QStringLiteral("user")).toString(), QStringLiteral("from-python"));
    QCOMPARE(python.value(QStringLiteral("action")).toString(), QStringLiteral("comment"));
    QCOMPARE(python.value(QStringLiteral("count")).toInt(), 3);
    QCOMPARE(python.value(QStringLiteral("remaining")).toInt(), 7);
    QCOMPARE(rows.at(0).toObject().value(QStringLiteral("count")).toInt(), 2);

    // What the Subjects page loads: the same rows, the same usage.
    SubjectsOptions options;
    options.mayRepeat = true; // as the page asks
    auto list = await<SubjectList>([&](QObject* context, Callback<SubjectList> done) {
        Subjects(m_core.client(), m_core.schema()).list(options, context, std::move(done));
    });
    QVERIFY2(list, list ? "" : qPrintable(list.error().toString()));
    QCOMPARE(list->subjects.size(), size_t(2));
    const Subject& fromPython = list->subjects.at(1);
    QCOMPARE(fromPython.user, QByteArray("from-python"));
    QVERIFY(fromPython.hasPolicy && fromPython.stateKnown);
    QCOMPARE(fromPython.state.count, qint64(3));
    QCOMPARE(fromPython.state.limit, qint64(10));
    QCOMPARE(fromPython.state.remaining, qint64(7));
    QVERIFY2(fromPython.state.resetMs > 50'000 && fromPython.state.resetMs <= 60'000,
             qPrintable(QString::number(fromPython.state.resetMs)));
    QCOMPARE(list->subjects.at(0).state.count, qint64(2));
}

QTEST_GUILESS_MAIN(SubjectsFromPythonTest)
#include "tst_SubjectsFromPython.moc"
