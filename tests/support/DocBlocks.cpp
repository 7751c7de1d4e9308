#include "tests/support/DocBlocks.h"

#include <QRegularExpression>

#include <algorithm>

namespace tollgate::test {

namespace {

const QLatin1String kConsole("```console");
const QLatin1String kNotRun("<!-- not run:");

QString notRunReason(const QString& line)
{
    const QString trimmed = line.trimmed();
    if (!trimmed.startsWith(kNotRun) || !trimmed.endsWith(QLatin1String("-->")))
        return QString();
    const QString reason =
        trimmed.mid(kNotRun.size(), trimmed.size() - kNotRun.size() - 3).trimmed();
    return reason.isEmpty() ? QStringLiteral("(no reason given)") : reason;
}

// The number of backticks opening a fence on this line (0: not a fence).
int fenceLength(const QString& line)
{
    const QString trimmed = line.trimmed();
    int ticks = 0;
    while (ticks < trimmed.size() && trimmed[ticks] == QLatin1Char('`'))
        ++ticks;
    return ticks >= 3 ? ticks : 0;
}

// Whether the line closes a fence opened with `ticks` backticks: only backticks, at least as many.
bool closes(const QString& line, int ticks)
{
    const QString trimmed = line.trimmed();
    return fenceLength(trimmed) >= ticks && trimmed.count(QLatin1Char('`')) == trimmed.size();
}

QString withoutTrailingSpace(QString text)
{
    while (!text.isEmpty() && text.back().isSpace())
        text.chop(1);
    return text;
}

} // namespace

QList<DocBlock> consoleBlocks(const QString& file, const QString& markdown, QString* error)
{
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    QList<DocBlock> blocks;
    const auto fail = [&](int line, const QString& why) {
        *error = QStringLiteral("%1:%2: %3").arg(file).arg(line).arg(why);
        return blocks;
    };
    for (int i = 0; i < lines.size(); ++i) {
        const int ticks = fenceLength(lines[i]);
        if (ticks == 0)
            continue;
        if (ticks != 3 || lines[i].trimmed() != kConsole) { // another block: skip it whole
            int j = i + 1;
            while (j < lines.size() && !closes(lines[j], ticks))
                ++j;
            i = j;
            continue;
        }
        DocBlock block;
        block.file = file;
        block.line = i + 1;
        if (i > 0)
            block.notRun = notRunReason(lines[i - 1]);
        // A block indented under a list item: its lines lose the fence's indentation.
        const qsizetype indent = lines[i].indexOf(QLatin1Char('`'));
        int j = i + 1;
        for (; j < lines.size() && !closes(lines[j], 3); ++j) {
            qsizetype cut = 0;
            while (cut < indent && cut < lines[j].size() && lines[j][cut] == QLatin1Char(' '))
                ++cut;
            const QString text = lines[j].mid(cut);
            if (text.startsWith(QLatin1String("$ "))) {
                block.commands.append(DocCommand{j + 1, text.mid(2), {}});
            } else if (block.commands.isEmpty()) {
                return fail(j + 1, QStringLiteral("a console block starts with a \"$ \" command"));
            } else if (text.startsWith(QLatin1String("> "))) {
                DocCommand& last = block.commands.last();
                if (!last.expected.isEmpty())
                    return fail(j + 1, QStringLiteral("a \"> \" continuation line after output"));
                last.command += QLatin1Char('\n') + text.mid(2);
            } else {
                block.commands.last().expected.append(withoutTrailingSpace(text));
            }
        }
        if (j >= lines.size())
            return fail(block.line, QStringLiteral("the console block has no closing fence"));
        if (block.commands.isEmpty())
            return fail(block.line, QStringLiteral("the console block has no command"));
        for (DocCommand& command : block.commands) { // blank lines between commands are layout
            while (!command.expected.isEmpty() && command.expected.last().isEmpty())
                command.expected.removeLast();
        }
        blocks.append(block);
        i = j;
    }
    return blocks;
}

bool lineMatches(const QString& shown, const QString& printed)
{
    const QString want = withoutTrailingSpace(shown);
    const QString got = withoutTrailingSpace(printed);
    if (!want.contains(QLatin1String("...")))
        return want == got;
    QStringList parts = want.split(QLatin1String("..."));
    for (QString& part : parts)
        part = QRegularExpression::escape(part);
    const QRegularExpression pattern(
        QRegularExpression::anchoredPattern(parts.join(QLatin1String(".*"))));
    return pattern.match(got).hasMatch();
}

QString compareOutput(const QStringList& shown, const QStringList& printed)
{
    QStringList got = printed;
    while (!got.isEmpty() && withoutTrailingSpace(got.last()).isEmpty())
        got.removeLast();
    const qsizetype lines = std::max(shown.size(), got.size());
    for (qsizetype i = 0; i < lines; ++i) {
        if (i < shown.size() && i < got.size() && lineMatches(shown[i], got[i]))
            continue;
        return QStringLiteral(
                   "output line %1 differs:\n  the page shows: %2\n  it printed:     %3\n"
                   "--- the page shows ---\n%4\n--- it printed ---\n%5")
            .arg(i + 1)
            .arg(i < shown.size() ? shown[i] : QStringLiteral("(nothing more)"),
                 i < got.size() ? got[i] : QStringLiteral("(nothing more)"),
                 shown.join(QLatin1Char('\n')), got.join(QLatin1Char('\n')));
    }
    return QString();
}

} // namespace tollgate::test
