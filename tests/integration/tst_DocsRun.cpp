// The documentation's examples run (docs/developers.md, "Docs that run"): every ```console block
// of README.md, lua/README.md and docs/*.md, one test row per block named by its page and line,
// runs in bash against a private redis-server, and each command must print what the page shows.
// Environment, as the pages tell the reader to set it: TOLLGATE_URL (the server), TOLLGATE_LUA
// (the assembled scripts), and the built tollgatectl and tollgated first on PATH. The blocks of a
// page run in order on one server and in one working directory, so a page may build on its
// earlier examples; each page starts on an empty server in a directory of its own.

#include "tests/support/CliRunner.h"
#include "tests/support/DocBlocks.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace tollgate::test;

namespace {

constexpr int kBlockTimeoutMs = 120'000;

QStringList documentedPages()
{
    QStringList pages{QStringLiteral("README.md"), QStringLiteral("lua/README.md")};
    const QDir docs(sourcePath(QStringLiteral("docs")));
    for (const QString& name : docs.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name))
        pages << QStringLiteral("docs/") + name;
    return pages;
}

// The block as one bash script: each command's output (stdout and stderr, as a terminal shows
// both) goes to a file of its own, and background jobs a block starts end with it. (The ':' keeps
// a group whose command is only a comment from being empty, which bash refuses.)
QByteArray scriptOf(const DocBlock& block, const QString& outputDir)
{
    QByteArray script = "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT\n";
    for (int i = 0; i < block.commands.size(); ++i)
        script += "{ " + block.commands[i].command.toUtf8() + "\n:\n} > '" +
                  QDir(outputDir).filePath(QString::number(i)).toUtf8() + "' 2>&1\n";
    return script;
}

} // namespace

class DocsRunTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void blockPrintsWhatThePageShows_data();
    void blockPrintsWhatThePageShows();

private:
    bool startPage(const QString& page);
    QProcessEnvironment environment() const;

    RedisServer m_redis;
    QString m_binDir;
    QString m_page; // whose blocks the server and directory hold
    std::unique_ptr<QTemporaryDir> m_workDir;
};

void DocsRunTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_binDir = QFileInfo(tollgatectlPath()).absolutePath();
    for (const char* tool : {"tollgatectl", "tollgated"}) {
        const QString path = QDir(m_binDir).filePath(QString::fromLatin1(tool));
        QVERIFY2(QFileInfo(path).isExecutable(),
                 qPrintable(path + QStringLiteral(" is not built: the docs' examples run it")));
    }
}

QProcessEnvironment DocsRunTest::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"),
               m_binDir + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
    env.insert(QStringLiteral("TOLLGATE_URL"), m_redis.url());
    env.insert(QStringLiteral("TOLLGATE_LUA"), luaScriptDir());
    // Neither the reader's password variables nor a terminal's width change what is printed.
    env.remove(QStringLiteral("TOLLGATE_PASSWORD"));
    env.remove(QStringLiteral("REDISCLI_AUTH"));
    env.insert(QStringLiteral("TZ"), QStringLiteral("UTC"));
    return env;
}

bool DocsRunTest::startPage(const QString& page)
{
    if (page == m_page)
        return true;
    m_page = page;
    m_workDir = std::make_unique<QTemporaryDir>();
    return m_workDir->isValid() && m_redis.command({"FLUSHALL"}) == "+OK\r\n";
}

void DocsRunTest::blockPrintsWhatThePageShows_data()
{
    QTest::addColumn<QString>("page");
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("error");
    for (const QString& page : documentedPages()) {
        QFile file(sourcePath(page));
        if (!file.open(QIODevice::ReadOnly)) {
            QTest::newRow(qPrintable(page)) << page << -1 << file.errorString();
            continue;
        }
        QString error;
        const QList<DocBlock> blocks =
            consoleBlocks(page, QString::fromUtf8(file.readAll()), &error);
        for (int i = 0; i < blocks.size(); ++i)
            QTest::addRow("%s:%d", qPrintable(page), blocks[i].line) << page << i << QString();
        if (!error.isEmpty())
            QTest::newRow(qPrintable(error.section(QLatin1Char(' '), 0, 0))) << page << -1 << error;
    }
}

void DocsRunTest::blockPrintsWhatThePageShows()
{
    QFETCH(QString, page);
    QFETCH(int, index);
    QFETCH(QString, error);
    if (index < 0)
        QFAIL(qPrintable(error + QStringLiteral(" (see docs/developers.md, \"Docs that run\")")));
    QFile file(sourcePath(page));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QString unused;
    const DocBlock block =
        consoleBlocks(page, QString::fromUtf8(file.readAll()), &unused).at(index);
    if (!block.notRun.isEmpty())
        QSKIP(qPrintable(QStringLiteral("not run: ") + block.notRun));
    QVERIFY2(startPage(page), "a fresh server and working directory for the page");

    QTemporaryDir outputs;
    QProcess bash;
    bash.setProcessEnvironment(environment());
    bash.setWorkingDirectory(m_workDir->path());
    bash.setProcessChannelMode(QProcess::MergedChannels);
    const QString scriptPath = QDir(outputs.path()).filePath(QStringLiteral("block.sh"));
    QFile script(scriptPath);
    QVERIFY(script.open(QIODevice::WriteOnly) && script.write(scriptOf(block, outputs.path())) > 0);
    script.close();
    bash.setStandardInputFile(QProcess::nullDevice());
    bash.start(QStringLiteral("bash"),
               {QStringLiteral("--noprofile"), QStringLiteral("--norc"), scriptPath});
    QVERIFY2(bash.waitForStarted(), "bash");
    if (!bash.waitForFinished(kBlockTimeoutMs)) {
        bash.kill();
        bash.waitForFinished();
        QFAIL(qPrintable(QStringLiteral("%1:%2: the block ran longer than %3 s")
                             .arg(page)
                             .arg(block.line)
                             .arg(kBlockTimeoutMs / 1000)));
    }
    const QString bashSaid = QString::fromUtf8(bash.readAll()).trimmed(); // a syntax error, say
    for (int i = 0; i < block.commands.size(); ++i) {
        const DocCommand& command = block.commands[i];
        QFile output(QDir(outputs.path()).filePath(QString::number(i)));
        const QStringList printed =
            output.open(QIODevice::ReadOnly)
                ? QString::fromUtf8(output.readAll()).split(QLatin1Char('\n'))
                : QStringList{
                      QStringLiteral("(the command did not run: %1)").arg(output.errorString())};
        const QString difference = compareOutput(command.expected, printed);
        if (!difference.isEmpty())
            QFAIL(qPrintable(QStringLiteral("%1:%2: `%3` does not print what the page shows (see "
                                            "docs/developers.md, \"Docs that run\"); %4")
                                 .arg(page)
                                 .arg(command.line)
                                 .arg(command.command, difference)
                                 .append(bashSaid.isEmpty()
                                             ? QString()
                                             : QStringLiteral("\n--- bash ---\n") + bashSaid)));
    }
}

QTEST_GUILESS_MAIN(DocsRunTest)
#include "tst_DocsRun.moc"
