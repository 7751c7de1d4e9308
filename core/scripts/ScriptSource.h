#pragma once

#include "tollgate/Result.h"

#include <QList>
#include <QString>

namespace tollgate {

/// A line of an assembled script and the source line in lua/ it was copied from.
struct SourceLine
{
    QString script;  // "hit.lua"
    int line = 0;    // in the assembled script, 1-based
    QString source;  // "hit/sliding_log.lua", relative to lua/
    int sourceLine = 0;
    QString text;    // the line itself (the same in both files: includes are copied verbatim)
};

/// Where a line of an assembled script comes from, read from the line map the build writes
/// beside each script (<name>.lua.map, compiled in with the scripts, lua/README.md "Line map").
/// `where` is "<script>:<line>" ("hit:812", "hit.lua:812") or text holding Redis's own
/// "user_script:<line>" (a whole error message: "... script: <sha1>, on @user_script:812."),
/// the script then named before it ("hit:user_script:812") or by the SHA1 in the message.
/// A line with no script named maps in every script that long, one SourceLine each.
/// InvalidInput when `where` names no line, or a script or line that does not exist.
Result<QList<SourceLine>> locateSourceLine(const QString& where);

} // namespace tollgate
