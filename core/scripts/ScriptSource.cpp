#include "core/scripts/ScriptSource.h"

#include "core/scripts/ScriptLibrary.h"

#include <QRegularExpression>
#include <optional>

namespace tollgate {

namespace {

Error invalid(const QString& message)
{
    return Error{ErrorKind::InvalidInput, message};
}

// Line `line` of `script` through its map: the last run starting at or before it. Nothing when
// the script has no map or is shorter.
std::optional<SourceLine> mapLine(const ScriptInfo& script, int line)
{
    const QList<QByteArray> lines = script.source.split('\n');
    const int count = lines.size() - (script.source.endsWith('\n') ? 1 : 0);
    if (line < 1 || line > count)
        return std::nullopt;
    std::optional<SourceLine> found;
    for (const QByteArray& run : script.lineMap.split('\n')) {
        const QList<QByteArray> fields = run.split(' ');
        if (run.startsWith('#') || fields.size() != 3)
            continue;
        const int first = fields[0].toInt();
        if (first > line)
            break;
        found = SourceLine{script.name + QStringLiteral(".lua"), line, QString::fromUtf8(fields[1]),
                           fields[2].toInt() + (line - first),
                           QString::fromUtf8(lines[line - 1])};
    }
    return found;
}

} // namespace

Result<QList<SourceLine>> locateSourceLine(const QString& where)
{
    const ScriptLibrary& library = ScriptLibrary::instance();
    // Redis's own words first ("user_script:812", the SHA1 of the script beside it), then
    // "<script>:<line>".
    static const QRegularExpression redisLine(QStringLiteral("@?user_script:(\\d+)"));
    static const QRegularExpression sha1(QStringLiteral("\\b([0-9a-f]{40})\\b"));
    static const QRegularExpression named(QStringLiteral("^\\s*([A-Za-z_][\\w]*)(?:\\.lua)?:(\\d+)\\s*$"));
    static const QRegularExpression namedRedis(QStringLiteral("^\\s*([A-Za-z_][\\w]*)(?:\\.lua)?:@?user_script:"));
    QString name;
    int line = 0;
    if (const auto m = redisLine.match(where); m.hasMatch()) {
        line = m.captured(1).toInt();
        if (const auto prefix = namedRedis.match(where); prefix.hasMatch()) {
            name = prefix.captured(1);
        } else if (const auto sha = sha1.match(where); sha.hasMatch()) {
            for (const ScriptInfo& script : library.scripts()) {
                if (script.sha1 == sha.captured(1).toLatin1())
                    name = script.name;
            }
            if (name.isEmpty())
                return invalid(QStringLiteral("no script of this build has the SHA1 %1 (tollgatectl "
                                              "scripts lists them)")
                                   .arg(sha.captured(1)));
        }
    } else if (const auto m = named.match(where); m.hasMatch()) {
        name = m.captured(1);
        line = m.captured(2).toInt();
    } else {
        return invalid(QStringLiteral("\"%1\" names no line of a script: give <script>:<line> "
                                      "(hit:812) or Redis's error text (user_script:812)")
                           .arg(where.left(200)));
    }

    QList<SourceLine> found;
    if (!name.isEmpty()) {
        const ScriptInfo* script = library.find(name);
        if (!script)
            return invalid(QStringLiteral("no script named %1 (tollgatectl scripts lists them)").arg(name));
        if (script->lineMap.isEmpty())
            return invalid(QStringLiteral("%1.lua has no line map beside it").arg(name));
        if (auto at = mapLine(*script, line))
            found << *at;
        else
            return invalid(QStringLiteral("%1.lua has no line %2").arg(name).arg(line));
        return found;
    }
    for (const ScriptInfo& script : library.scripts()) {
        if (auto at = mapLine(script, line))
            found << *at;
    }
    if (found.isEmpty())
        return invalid(QStringLiteral("no script has a line %1").arg(line));
    return found;
}

} // namespace tollgate
