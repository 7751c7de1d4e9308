// The Lua scripts are assembled from lua/'s sources at build time (cmake/LuaAssemble.cmake): the
// assembler copies included text byte for byte and refuses what would make a script ambiguous;
// the scripts core compiles in are the assembled ones, one per operation, with no include left.
// Beside each it writes a line map, from a line of the script back to the source line it copies.

#include "core/scripts/ScriptLibrary.h"
#include "tests/support/TestEnv.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using tollgate::test::luaScriptDir;
using tollgate::test::sourcePath;

class LuaAssemblyTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();

    void includedTextIsCopiedVerbatim();
    void nestedIncludesAreResolved();
    void cycleIsRefused();
    void doubleIncludeIsRefused();
    void missingIncludeIsRefused();
    void malformedIncludeLineIsRefused();
    void lineMapNamesEachRun();
    void everyLineMapsToItsSource();

    void everyOperationIsAssembled();
    void coreCompilesInTheAssembledScripts();

private:
    struct Run
    {
        int code = -1;
        QString errors; // cmake's message, whitespace simplified (it wraps long lines)
        QByteArray output;
        QByteArray map; // <output>.map
    };

    void write(const QString& relative, const QByteArray& text);
    Run assemble(const QString& operation);

    std::unique_ptr<QTemporaryDir> m_tree;
};

void LuaAssemblyTest::init()
{
    m_tree = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tree->isValid());
}

void LuaAssemblyTest::write(const QString& relative, const QByteArray& text)
{
    const QString path = m_tree->filePath(QStringLiteral("lua/") + relative);
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(text), qint64(text.size()));
}

LuaAssemblyTest::Run LuaAssemblyTest::assemble(const QString& operation)
{
    const QString output = m_tree->filePath(QStringLiteral("out/") + operation);
    QDir().mkpath(m_tree->filePath(QStringLiteral("out")));
    QProcess cmake;
    cmake.start(QStringLiteral(TOLLGATE_CMAKE_COMMAND),
                {QStringLiteral("-DLUA_ROOT=") + m_tree->filePath(QStringLiteral("lua")),
                 QStringLiteral("-DSOURCE=") + operation, QStringLiteral("-DOUTPUT=") + output,
                 QStringLiteral("-P"), sourcePath(QStringLiteral("cmake/LuaAssemble.cmake"))});
    Run run;
    if (!cmake.waitForFinished(60'000))
        return run;
    run.code = cmake.exitStatus() == QProcess::NormalExit ? cmake.exitCode() : -1;
    run.errors = QString::fromUtf8(cmake.readAllStandardError()).simplified();
    QFile file(output);
    if (file.open(QIODevice::ReadOnly))
        run.output = file.readAll();
    QFile map(output + QStringLiteral(".map"));
    if (map.open(QIODevice::ReadOnly))
        run.map = map.readAll();
    return run;
}

void LuaAssemblyTest::includedTextIsCopiedVerbatim()
{
    // What CMake could mistake for its own syntax (lists, variables, brackets, escapes), bytes
    // that are not UTF-8, trailing blanks, an include line that looks like one inside a comment.
    const QByteArray shared = "local s = 'a;b;;c' -- ${NOT_A_VARIABLE} @AT@ [[long]] [=[x]=]\n"
                              "local t = \"\\n\\t\\\\\" .. '\\\"'   \n"
                              "-- not an include: --@include \"nowhere.lua\"\n"
                              "\xff\xfe raw bytes\n\n";
    write(QStringLiteral("includes/shared.lua"), shared);
    write(QStringLiteral("op.lua"),
          "--[[ op.lua: KEYS[1] the key ]]\n--@include \"includes/shared.lua\"\nreturn s");
    const Run run = assemble(QStringLiteral("op.lua"));
    QVERIFY2(run.code == 0, qPrintable(run.errors));
    QCOMPARE(run.output, "--[[ op.lua: KEYS[1] the key ]]\n" + shared + "return s");
}

void LuaAssemblyTest::nestedIncludesAreResolved()
{
    write(QStringLiteral("includes/a.lua"), "a1\n--@include \"includes/b.lua\"\na2\n");
    write(QStringLiteral("includes/b.lua"), "b"); // no final newline: the line keeps its own
    write(QStringLiteral("includes/c.lua"), "c\n");
    write(QStringLiteral("op.lua"),
          "--@include \"includes/a.lua\"\nmiddle\n--@include \"includes/c.lua\"\nend\n");
    const Run run = assemble(QStringLiteral("op.lua"));
    QVERIFY2(run.code == 0, qPrintable(run.errors));
    QCOMPARE(run.output, QByteArray("a1\nb\na2\nmiddle\nc\nend\n"));
}

void LuaAssemblyTest::cycleIsRefused()
{
    write(QStringLiteral("includes/a.lua"), "--@include \"includes/b.lua\"\n");
    write(QStringLiteral("includes/b.lua"), "--@include \"includes/a.lua\"\n");
    write(QStringLiteral("op.lua"), "--@include \"includes/a.lua\"\n");
    const Run run = assemble(QStringLiteral("op.lua"));
    QVERIFY(run.code != 0);
    QVERIFY2(
        run.errors.contains(QStringLiteral(
            "lua include cycle: op.lua -> includes/a.lua -> includes/b.lua -> includes/a.lua")),
        qPrintable(run.errors));
    QVERIFY(run.output.isEmpty());

    write(QStringLiteral("self.lua"), "x\n--@include \"self.lua\"\n");
    const Run self = assemble(QStringLiteral("self.lua"));
    QVERIFY(self.code != 0);
    QVERIFY2(self.errors.contains(QStringLiteral("lua include cycle: self.lua -> self.lua")),
             qPrintable(self.errors));
}

void LuaAssemblyTest::doubleIncludeIsRefused()
{
    // Once directly and once through another include: both name the files involved.
    write(QStringLiteral("includes/a.lua"), "--@include \"includes/b.lua\"\n");
    write(QStringLiteral("includes/b.lua"), "b\n");
    write(QStringLiteral("op.lua"),
          "--@include \"includes/a.lua\"\n--@include \"includes/b.lua\"\n");
    const Run run = assemble(QStringLiteral("op.lua"));
    QVERIFY(run.code != 0);
    QVERIFY2(
        run.errors.contains(QStringLiteral("lua/op.lua: includes \"includes/b.lua\" a second time "
                                           "(lua/includes/a.lua included it already)")),
        qPrintable(run.errors));
    QVERIFY(run.output.isEmpty());

    write(QStringLiteral("twice.lua"),
          "--@include \"includes/b.lua\"\n--@include \"includes/b.lua\"\n");
    const Run twice = assemble(QStringLiteral("twice.lua"));
    QVERIFY(twice.code != 0);
    QVERIFY2(twice.errors.contains(QStringLiteral("a second time")), qPrintable(twice.errors));
}

void LuaAssemblyTest::missingIncludeIsRefused()
{
    write(QStringLiteral("includes/a.lua"), "--@include \"includes/gone.lua\"\n");
    write(QStringLiteral("op.lua"), "--@include \"includes/a.lua\"\n");
    const Run run = assemble(QStringLiteral("op.lua"));
    QVERIFY(run.code != 0);
    QVERIFY2(run.errors.contains(QStringLiteral(
                 "lua/includes/a.lua: includes \"includes/gone.lua\", which does not exist")),
             qPrintable(run.errors));
    QVERIFY(run.output.isEmpty());
}

void LuaAssemblyTest::malformedIncludeLineIsRefused()
{
    // Never passed through as a comment: the script would lack what the line meant to bring.
    for (const QByteArray& line : {QByteArray("--@include includes/a.lua"),
                                   QByteArray("--@include \"includes/a.lua\" -- why"),
                                   QByteArray("--@includes \"includes/a.lua\"")}) {
        write(QStringLiteral("includes/a.lua"), "a\n");
        write(QStringLiteral("op.lua"), line + '\n');
        const Run run = assemble(QStringLiteral("op.lua"));
        QVERIFY2(run.code != 0, line.constData());
        QVERIFY2(run.errors.contains(QStringLiteral("is not an include line")),
                 qPrintable(run.errors));
    }
}

void LuaAssemblyTest::lineMapNamesEachRun()
{
    // a1 b a2 middle c end: each run of lines copied from one file, with its line there (the
    // include lines themselves are gone, so the including file's lines skip them).
    write(QStringLiteral("includes/a.lua"), "a1\n--@include \"includes/b.lua\"\na2\n");
    write(QStringLiteral("includes/b.lua"), "b");
    write(QStringLiteral("includes/c.lua"), "c\n");
    write(QStringLiteral("op.lua"),
          "--@include \"includes/a.lua\"\nmiddle\n--@include \"includes/c.lua\"\nend\n");
    const Run run = assemble(QStringLiteral("op.lua"));
    QVERIFY2(run.code == 0, qPrintable(run.errors));
    QList<QByteArray> runs = run.map.split('\n');
    runs.removeIf([](const QByteArray& line) { return line.isEmpty() || line.startsWith('#'); });
    QCOMPARE(runs, (QList<QByteArray>{"1 includes/a.lua 1", "2 includes/b.lua 1",
                                      "3 includes/a.lua 3", "4 op.lua 2", "5 includes/c.lua 1",
                                      "6 op.lua 4"}));
}

void LuaAssemblyTest::everyLineMapsToItsSource()
{
    // Every line of every assembled script, through its map, is the very text of the source
    // line named.
    const QDir built(luaScriptDir());
    for (const QString& name : built.entryList({QStringLiteral("*.lua")}, QDir::Files)) {
        QFile script(built.filePath(name)), map(built.filePath(name + QStringLiteral(".map")));
        QVERIFY2(script.open(QIODevice::ReadOnly) && map.open(QIODevice::ReadOnly), qPrintable(name));
        QList<QByteArray> lines = script.readAll().split('\n');
        if (lines.last().isEmpty())
            lines.removeLast();
        QList<QList<QByteArray>> runs;
        for (const QByteArray& run : map.readAll().split('\n'))
            if (!run.isEmpty() && !run.startsWith('#'))
                runs << run.split(' ');
        QVERIFY2(!runs.isEmpty() && runs.first().value(0) == "1", qPrintable(name));
        QHash<QByteArray, QList<QByteArray>> sources;
        qsizetype at = 0;
        for (qsizetype line = 1; line <= lines.size(); ++line) {
            while (at + 1 < runs.size() && runs[at + 1].value(0).toLongLong() <= line)
                ++at;
            const QList<QByteArray>& run = runs[at];
            QCOMPARE(run.size(), 3);
            if (!sources.contains(run[1])) {
                QFile source(sourcePath(QStringLiteral("lua/") + QString::fromUtf8(run[1])));
                QVERIFY2(source.open(QIODevice::ReadOnly), run[1].constData());
                sources[run[1]] = source.readAll().split('\n');
            }
            const qsizetype sourceLine = run[2].toLongLong() + line - run[0].toLongLong();
            QVERIFY2(sources[run[1]].value(sourceLine - 1) == lines[line - 1],
                     qPrintable(QStringLiteral("%1:%2 is not %3:%4")
                                    .arg(name)
                                    .arg(line)
                                    .arg(QString::fromUtf8(run[1]))
                                    .arg(sourceLine)));
        }
    }
}

void LuaAssemblyTest::everyOperationIsAssembled()
{
    const QStringList sources = QDir(sourcePath(QStringLiteral("lua")))
                                    .entryList({QStringLiteral("*.lua")}, QDir::Files, QDir::Name);
    const QStringList assembled =
        QDir(luaScriptDir()).entryList({QStringLiteral("*.lua")}, QDir::Files, QDir::Name);
    QVERIFY(sources.size() >= 11);
    QCOMPARE(assembled, sources);
    for (const QString& name : assembled) {
        QFile file(QDir(luaScriptDir()).filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY2(!text.contains("--@include"), qPrintable(name));
    }
}

void LuaAssemblyTest::coreCompilesInTheAssembledScripts()
{
    const QList<ScriptInfo>& scripts = ScriptLibrary::instance().scripts();
    QCOMPARE(scripts.size(), QDir(luaScriptDir()).entryList({QStringLiteral("*.lua")}).size());
    for (const ScriptInfo& script : scripts) {
        QFile file(QDir(luaScriptDir()).filePath(script.name + QStringLiteral(".lua")));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(script.name));
        QVERIFY2(file.readAll() == script.source, qPrintable(script.name));
        // The header the console's Lua page shows came through the assembly.
        QVERIFY2(!script.keys.isEmpty() || !script.args.isEmpty(), qPrintable(script.name));
    }
}

QTEST_GUILESS_MAIN(LuaAssemblyTest)
#include "tst_LuaAssembly.moc"
