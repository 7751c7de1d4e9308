#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace tollgate {

/// One Lua operation of lua/, as compiled into core (resource :/lua/<name>.lua).
struct ScriptInfo
{
    QString name; // file name without .lua: "hit", "ban", ...
    QByteArray source;
    QByteArray sha1;    // lowercase hex, what EVALSHA and SCRIPT EXISTS use
    QString summary;    // first line of the header comment
    QStringList keys;   // "KEYS[1] ..." lines of the header, in order
    QStringList args;   // "ARGV[1] ..." lines of the header, in order
    QString reply;      // the header's reply description
    QString header;     // the whole leading comment, for display
    int contract = 0;   // the header's "Contract: N" line (lua/README.md, "Contract version")
    bool writes = true; // false when its first line declares "#!lua flags=no-writes"
    QByteArray lineMap; // <name>.lua.map beside it: where each line comes from (ScriptSource.h)
};

/// The scripts shipped with this build (or those of the folder TOLLGATE_LUA_DIR names, for
/// developers measuring a changed script without a rebuild). Loaded once, immutable afterwards, so
/// it can be read from any thread.
class ScriptLibrary
{
public:
    static const ScriptLibrary& instance();

    const QList<ScriptInfo>& scripts() const { return m_scripts; }
    /// nullptr when there is no such script.
    const ScriptInfo* find(const QString& name) const;

    /// Parses the leading "--" comment block of a script.
    static ScriptInfo describe(const QString& name, const QByteArray& source);

private:
    ScriptLibrary();
    QList<ScriptInfo> m_scripts;
};

} // namespace tollgate
