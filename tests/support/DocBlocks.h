#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace tollgate::test {

// The examples of the documentation that run (docs/developers.md, "Docs that run"): fenced blocks
// with the info string `console`. In a block, a line starting "$ " is a command, a line starting
// "> " continues the command above it (as a shell's second prompt shows it), and the lines after a
// command, up to the next "$ ", are the output the page shows for it. An HTML comment
// `<!-- not run: <why> -->` on the line before the fence keeps a block from being run.

// One command and what the page shows it prints.
struct DocCommand
{
    int line = 0;         // of its "$ " line, 1-based
    QString command;      // the shell text, continuation lines joined with newlines
    QStringList expected; // its output as shown, one entry per line
};

struct DocBlock
{
    QString file;   // as given to consoleBlocks(), e.g. "docs/CLI.md"
    int line = 0;   // of the opening fence, 1-based
    QString notRun; // the reason of a `<!-- not run: ... -->` before it; empty: it runs
    QList<DocCommand> commands;
};

// The console blocks of one Markdown page. A block that cannot be read (no closing fence, output
// before the first command, a continuation line without a command) is an error naming the line;
// `error` is set and the blocks read so far are returned.
QList<DocBlock> consoleBlocks(const QString& file, const QString& markdown, QString* error);

// Whether one line of output is the line the page shows: equal, except that each "..." in the
// shown line stands for any text within the line (a SHA, a time, a generated id). Trailing
// whitespace is ignored on both sides.
bool lineMatches(const QString& shown, const QString& printed);

// Empty when `printed` is what the page shows, line for line (empty lines at the end of either are
// ignored: the page separates commands with them); otherwise a message with the first line that
// differs and both outputs in full.
QString compareOutput(const QStringList& shown, const QStringList& printed);

} // namespace tollgate::test
