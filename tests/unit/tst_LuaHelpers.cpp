// One set of Lua helpers: no function name is defined in two source files under lua/ (the
// frozen oracle in tests/reference is no source of the scripts). Two helpers of one name with
// different signatures (one raising, one returning an error; one signed, one not) read alike
// at the call and are not; a helper several scripts need lives once in lua/includes/.
//
// The one exception is an interface: a name a shared part calls and each of its alternatives
// defines, only one of which a call runs (each algorithm's load and plan, each operation's main).

#include "tests/support/TestEnv.h"

#include <QDirIterator>
#include <QMap>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using tollgate::test::sourcePath;

namespace {

// name -> the files (relative to root) defining it: `local function f(`, `function f(` (also
// assigning a local declared earlier) and `local f = function(`.
QMap<QString, QStringList> definitions(const QString& root)
{
    static const QRegularExpression definition(QStringLiteral(
        R"(^\s*(?:local\s+function\s+([A-Za-z_]\w*)|function\s+([A-Za-z_][\w.:]*)|local\s+([A-Za-z_]\w*)\s*=\s*function\b))"));
    QMap<QString, QStringList> found;
    QDirIterator files(root, {QStringLiteral("*.lua")}, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QString relative = QDir(root).relativeFilePath(path);
        for (const QString& line : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'))) {
            const QRegularExpressionMatch m = definition.match(line);
            if (!m.hasMatch())
                continue;
            const QString name = m.captured(1) + m.captured(2) + m.captured(3);
            if (!found[name].contains(relative))
                found[name] << relative;
        }
    }
    for (QStringList& where : found)
        where.sort();
    return found;
}

// Every name defined in more than one file, except an interface's in exactly its files.
QStringList definedTwice(const QMap<QString, QStringList>& found,
                         const QMap<QString, QStringList>& interfaces)
{
    QStringList twice;
    for (auto it = found.cbegin(); it != found.cend(); ++it) {
        if (it->size() > 1 && interfaces.value(it.key()) != *it)
            twice << it.key() + QStringLiteral(" in ") + it->join(QStringLiteral(", "));
    }
    return twice;
}

QStringList perAlgorithm(const QString& folder)
{
    QStringList files;
    for (const char* algorithm : {"fixed_window", "sliding_log", "sliding_window", "token_bucket"})
        files << folder + QLatin1Char('/') + QLatin1String(algorithm) + QStringLiteral(".lua");
    return files;
}

} // namespace

class LuaHelpersTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noNameIsDefinedTwice();
    void aNameDefinedTwiceIsFound();
};

void LuaHelpersTest::noNameIsDefinedTwice()
{
    const QMap<QString, QStringList> found = definitions(sourcePath(QStringLiteral("lua")));
    QVERIFY2(found.size() > 40, "lua/'s sources were not found");
    // Each operation its main() (hit/writes.lua runs it for hit.lua); the general path's load and plan, refund.lua's refund.
    const QMap<QString, QStringList> interfaces{
        {QStringLiteral("main"),
         {QStringLiteral("hit.lua"), QStringLiteral("refund.lua"), QStringLiteral("usage.lua")}},
        // hit/checks.lua and hit/time.lua call signed_int(), which each script including them gives.
        {QStringLiteral("signed_int"), {QStringLiteral("hit/clock.lua"), QStringLiteral("usage.lua")}},
        {QStringLiteral("load"), perAlgorithm(QStringLiteral("hit"))},
        {QStringLiteral("plan"), perAlgorithm(QStringLiteral("hit"))},
        {QStringLiteral("refund"), perAlgorithm(QStringLiteral("refund"))}};
    const QStringList twice = definedTwice(found, interfaces);
    QVERIFY2(twice.isEmpty(), qPrintable(QStringLiteral("defined in more than one file: ") +
                                         twice.join(QStringLiteral("; "))));
}

void LuaHelpersTest::aNameDefinedTwiceIsFound()
{
    QTemporaryDir tree;
    QVERIFY(tree.isValid());
    const QList<QPair<QString, QByteArray>> files{
        {QStringLiteral("a.lua"), "local function to_int(s) return s + 0 end\n"},
        {QStringLiteral("includes/b.lua"), "  local function to_int(s, digits)\nend\n"
                                           "local clock\n  function clock() end\n"},
        {QStringLiteral("hit/c.lua"), "local clock = function() end\nlocal x = to_int('1')\n"}};
    for (const auto& [name, text] : files) {
        QVERIFY(QDir(tree.path()).mkpath(QFileInfo(name).path()));
        QFile file(tree.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    }
    QCOMPARE(definedTwice(definitions(tree.path()), {}),
             (QStringList{QStringLiteral("clock in hit/c.lua, includes/b.lua"),
                          QStringLiteral("to_int in a.lua, includes/b.lua")}));
    // an interface in exactly its files passes; in one file more it does not
    QCOMPARE(definedTwice(definitions(tree.path()),
                          {{QStringLiteral("clock"),
                            {QStringLiteral("hit/c.lua"), QStringLiteral("includes/b.lua")}},
                           {QStringLiteral("to_int"), {QStringLiteral("a.lua")}}}),
             QStringList{QStringLiteral("to_int in a.lua, includes/b.lua")});
}

QTEST_GUILESS_MAIN(LuaHelpersTest)
#include "tst_LuaHelpers.moc"
