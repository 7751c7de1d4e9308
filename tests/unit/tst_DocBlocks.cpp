// How the docs' console blocks are read and compared (tests/support/DocBlocks), the rules that
// docs/developers.md's "Docs that run" states: commands, continuations, output, the "not run"
// marker, the "..." placeholder, and the errors that name a line.

#include "tests/support/DocBlocks.h"

#include <QtTest>

using namespace tollgate::test;

class DocBlocksTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void commandsContinuationsAndOutput();
    void indentedUnderAListItem();
    void notRunMarker();
    void onlyConsoleBlocks();
    void badBlocksNameTheLine_data();
    void badBlocksNameTheLine();
    void placeholderMatchesWithinALine_data();
    void placeholderMatchesWithinALine();
    void differenceNamesTheLine();
};

void DocBlocksTest::commandsContinuationsAndOutput()
{
    const QString page = QStringLiteral("text\n"
                                        "```console\n"
                                        "$ echo a \\\n"
                                        "> b\n"
                                        "a b\n"
                                        "\n"
                                        "$ true\n"
                                        "```\n");
    QString error;
    const QList<DocBlock> blocks = consoleBlocks(QStringLiteral("p.md"), page, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(blocks.size(), 1);
    QCOMPARE(blocks[0].line, 2);
    QCOMPARE(blocks[0].commands.size(), 2);
    QCOMPARE(blocks[0].commands[0].line, 3);
    QCOMPARE(blocks[0].commands[0].command, QStringLiteral("echo a \\\nb"));
    QCOMPARE(blocks[0].commands[0].expected, QStringList{QStringLiteral("a b")});
    QCOMPARE(blocks[0].commands[1].expected, QStringList());
    QVERIFY(blocks[0].notRun.isEmpty());
}

void DocBlocksTest::indentedUnderAListItem()
{
    QString error;
    const QList<DocBlock> blocks =
        consoleBlocks(QStringLiteral("p.md"),
                      QStringLiteral("- item:\n\n  ```console\n  $ echo 3\n  3\n  ```\n"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(blocks.size(), 1);
    QCOMPARE(blocks[0].commands[0].command, QStringLiteral("echo 3"));
    QCOMPARE(blocks[0].commands[0].expected, QStringList{QStringLiteral("3")});
}

void DocBlocksTest::notRunMarker()
{
    QString error;
    const QList<DocBlock> blocks = consoleBlocks(
        QStringLiteral("p.md"),
        QStringLiteral(
            "<!-- not run: needs a cluster -->\n```console\n$ tollgatectl cluster\n```\n"),
        &error);
    QCOMPARE(blocks.size(), 1);
    QCOMPARE(blocks[0].notRun, QStringLiteral("needs a cluster"));
}

void DocBlocksTest::onlyConsoleBlocks()
{
    QString error;
    const QList<DocBlock> blocks =
        consoleBlocks(QStringLiteral("p.md"),
                      QStringLiteral("```sh\n$ rm -rf /\n```\n```\n$ x\n```\n"
                                     "````markdown\n```console\n$ shown, not run\n```\n````\n"),
                      &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(blocks.isEmpty());
}

void DocBlocksTest::badBlocksNameTheLine_data()
{
    QTest::addColumn<QString>("page");
    QTest::addColumn<QString>("error");
    QTest::newRow("output first") << QStringLiteral("\n```console\nhello\n```\n")
                                  << QStringLiteral(
                                         "p.md:3: a console block starts with a \"$ \" command");
    QTest::newRow("no fence") << QStringLiteral("```console\n$ echo\n")
                              << QStringLiteral("p.md:1: the console block has no closing fence");
    QTest::newRow("empty") << QStringLiteral("```console\n```\n")
                           << QStringLiteral("p.md:1: the console block has no command");
    QTest::newRow("late continuation")
        << QStringLiteral("```console\n$ echo\nx\n> y\n```\n")
        << QStringLiteral("p.md:4: a \"> \" continuation line after output");
}

void DocBlocksTest::badBlocksNameTheLine()
{
    QFETCH(QString, page);
    QFETCH(QString, error);
    QString got;
    consoleBlocks(QStringLiteral("p.md"), page, &got);
    QCOMPARE(got, error);
}

void DocBlocksTest::placeholderMatchesWithinALine_data()
{
    QTest::addColumn<QString>("shown");
    QTest::addColumn<QString>("printed");
    QTest::addColumn<bool>("matches");
    QTest::newRow("equal") << "a b"
                           << "a b" << true;
    QTest::newRow("trailing space") << "a b  "
                                    << "a b" << true;
    QTest::newRow("other") << "a b"
                           << "a c" << false;
    QTest::newRow("sha") << "hit  ...  yes"
                         << "hit  0123abcd  yes" << true;
    QTest::newRow("empty placeholder") << "x...y"
                                       << "xy" << true;
    QTest::newRow("not regex") << "a.c (1) ..."
                               << "abc (1) z" << false;
    QTest::newRow("anchored") << "...ok"
                              << "ok!" << false;
    QTest::newRow("two") << "{\"a\":...,\"b\":...}"
                         << "{\"a\":1,\"b\":\"x\"}" << true;
}

void DocBlocksTest::placeholderMatchesWithinALine()
{
    QFETCH(QString, shown);
    QFETCH(QString, printed);
    QFETCH(bool, matches);
    QCOMPARE(lineMatches(shown, printed), matches);
}

void DocBlocksTest::differenceNamesTheLine()
{
    QVERIFY(compareOutput({QStringLiteral("a"), QStringLiteral("...")},
                          {QStringLiteral("a"), QStringLiteral("b"), QString()})
                .isEmpty());
    const QString difference =
        compareOutput({QStringLiteral("a")}, {QStringLiteral("a"), QStringLiteral("b")});
    QVERIFY2(difference.startsWith(QStringLiteral("output line 2 differs")),
             qPrintable(difference));
    QVERIFY(difference.contains(QStringLiteral("(nothing more)")));
}

QTEST_GUILESS_MAIN(DocBlocksTest)
#include "tst_DocBlocks.moc"
