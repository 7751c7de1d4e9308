#include "core/scripts/ScriptLibrary.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRegularExpression>

namespace tollgate {

namespace {

// The leading comment: either a --[[ ... ]] block or consecutive "--" lines.
QStringList headerLines(const QByteArray& source)
{
    QString text = QString::fromUtf8(source);
    // A "#!lua flags=..." line (Redis 7 script flags) comes before the comment.
    if (text.startsWith(QStringLiteral("#!")))
        text = text.mid(text.indexOf(QLatin1Char('\n')) + 1);
    if (text.startsWith(QStringLiteral("--[["))) {
        const int end = text.indexOf(QStringLiteral("]]"));
        return text.mid(4, end < 0 ? -1 : end - 4).split(QLatin1Char('\n'));
    }
    QStringList lines;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QStringLiteral("--")))
            break;
        lines << line.mid(2).mid(line.startsWith(QStringLiteral("-- ")) ? 1 : 0);
    }
    return lines;
}

} // namespace

const ScriptLibrary& ScriptLibrary::instance()
{
    static const ScriptLibrary library;
    return library;
}

ScriptLibrary::ScriptLibrary()
{
    // TOLLGATE_LUA_DIR replaces the built-in scripts with a folder's (a developer seam: measure or
    // test a changed script without rebuilding); unset, the scripts compiled into core are used.
    const QString overridden = qEnvironmentVariable("TOLLGATE_LUA_DIR");
    const QDir dir(overridden.isEmpty() ? QStringLiteral(":/lua") : overridden);
    const QStringList files = dir.entryList({QStringLiteral("*.lua")}, QDir::Files, QDir::Name);
    for (const QString& file : files) {
        QFile f(dir.filePath(file));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        m_scripts << describe(file.chopped(4), f.readAll());
        if (QFile map(dir.filePath(file + QStringLiteral(".map"))); map.open(QIODevice::ReadOnly))
            m_scripts.last().lineMap = map.readAll();
    }
}

const ScriptInfo* ScriptLibrary::find(const QString& name) const
{
    for (const ScriptInfo& script : m_scripts) {
        if (script.name == name)
            return &script;
    }
    return nullptr;
}

ScriptInfo ScriptLibrary::describe(const QString& name, const QByteArray& source)
{
    QStringList replyLines;
    ScriptInfo info;
    info.name = name;
    info.source = source;
    info.sha1 = QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex();
    // Redis itself refuses a write from a script whose shebang says no-writes.
    const QByteArray shebang = source.left(source.indexOf('\n')).simplified();
    if (shebang.startsWith("#!lua flags="))
        info.writes = !shebang.mid(12).split(',').contains("no-writes");

    static const QRegularExpression keyLine(QStringLiteral("^KEYS\\[[^\\]]+\\]"));
    static const QRegularExpression argLine(QStringLiteral("^ARGV\\[[^\\]]+\\]"));
    static const QRegularExpression contractLine(QStringLiteral("^Contract: (\\d+)"));
    QStringList header;
    QStringList* continued = nullptr;
    for (const QString& raw : headerLines(source)) {
        const QString text = raw.trimmed();
        header << raw;
        if (text.isEmpty()) {
            continued = nullptr;
            continue;
        }
        const bool indented = raw.startsWith(QLatin1Char(' ')) || raw.startsWith(QLatin1Char('\t'));
        if (info.summary.isEmpty()) {
            info.summary = text;
        } else if (keyLine.match(text).hasMatch()) {
            info.keys << text.simplified();
            continued = &info.keys;
        } else if (argLine.match(text).hasMatch()) {
            info.args << text.simplified();
            continued = &info.args;
        } else if (const auto contract = contractLine.match(text); contract.hasMatch()) {
            info.contract = contract.captured(1).toInt();
            continued = nullptr;
        } else if (text.startsWith(QStringLiteral("Reply"), Qt::CaseInsensitive)) {
            replyLines.clear();
            replyLines << text;
            continued = &replyLines;
        } else if (continued && indented) {
            continued->last() += QLatin1Char(' ') + text; // a wrapped description
        } else {
            continued = nullptr;
        }
    }
    info.reply = replyLines.join(QLatin1Char(' '));
    info.header = header.join(QLatin1Char('\n')).trimmed();
    return info;
}

} // namespace tollgate
