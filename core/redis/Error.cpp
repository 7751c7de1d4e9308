#include "core/redis/ErrorReply.h"
#include "tollgate/Result.h"

namespace tollgate {

QString Error::toString() const
{
    return errorKindName(kind) + QStringLiteral(": ") + message;
}

QString errorKindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Io: return QStringLiteral("io");
    case ErrorKind::Timeout: return QStringLiteral("timeout");
    case ErrorKind::Closed: return QStringLiteral("closed");
    case ErrorKind::Protocol: return QStringLiteral("protocol");
    case ErrorKind::Auth: return QStringLiteral("auth");
    case ErrorKind::NoPerm: return QStringLiteral("noperm");
    case ErrorKind::NoScript: return QStringLiteral("noscript");
    case ErrorKind::WrongType: return QStringLiteral("wrongtype");
    case ErrorKind::Moved: return QStringLiteral("moved");
    case ErrorKind::Ask: return QStringLiteral("ask");
    case ErrorKind::Busy: return QStringLiteral("busy");
    case ErrorKind::Reply: return QStringLiteral("reply");
    case ErrorKind::InvalidInput: return QStringLiteral("invalid");
    case ErrorKind::Conflict: return QStringLiteral("conflict");
    case ErrorKind::NotFound: return QStringLiteral("notfound");
    case ErrorKind::Contract: return QStringLiteral("contract");
    case ErrorKind::Redirect: return QStringLiteral("redirect");
    }
    return QStringLiteral("unknown");
}

Error classifyErrorReply(const QByteArray& text)
{
    const int space = text.indexOf(' ');
    const QByteArray code = space < 0 ? text : text.left(space);
    const QByteArray rest = space < 0 ? QByteArray() : text.mid(space + 1);
    const QString full = QString::fromUtf8(text);

    // Tollgate's own script errors carry a TG_ prefix and a human message.
    if (code == "TG_INVALID")
        return {ErrorKind::InvalidInput, QString::fromUtf8(rest)};
    if (code == "TG_CONFLICT")
        return {ErrorKind::Conflict, QString::fromUtf8(rest)};
    if (code == "TG_CONTRACT")
        return {ErrorKind::Contract, QString::fromUtf8(rest)};
    if (code == "TG_NOTFOUND")
        return {ErrorKind::NotFound, QString::fromUtf8(rest)};
    // hit.lua / refund.lua: the user's override has other windows (message: which to send).
    if (code == "TG_OVERRIDE")
        return {ErrorKind::Redirect, QString::fromUtf8(rest)};
    if (code == "TG_CORRUPT")
        return {ErrorKind::WrongType, QString::fromUtf8(rest)};
    // A script found before writing anything that the ACL user may not run one of its writes.
    if (code == "TG_NOPERM")
        return {ErrorKind::NoPerm, QString::fromUtf8(rest)};

    if (code == "WRONGPASS" || code == "NOAUTH")
        return {ErrorKind::Auth, full};
    if (code == "NOPERM")
        return {ErrorKind::NoPerm, full};
    if (code == "NOSCRIPT")
        return {ErrorKind::NoScript, full};
    if (code == "WRONGTYPE")
        return {ErrorKind::WrongType, full};
    if (code == "MOVED")
        return {ErrorKind::Moved, QString::fromUtf8(rest)};
    if (code == "ASK")
        return {ErrorKind::Ask, QString::fromUtf8(rest)};
    // The server cannot serve right now (a long script, loading, failover, cluster
    // reconfiguration): worth retrying later, unlike a refusal.
    if (code == "BUSY" || code == "LOADING" || code == "TRYAGAIN" || code == "MASTERDOWN" ||
        code == "CLUSTERDOWN" || code == "READONLY")
        return {ErrorKind::Busy, full};
    // An ACL refusal inside a script arrives as a plain ERR.
    if (code == "ERR" && (rest.contains("can't run this command") ||
                          rest.contains("No permissions to access") ||
                          rest.contains("has no permissions")))
        return {ErrorKind::NoPerm, full};
    // Errors raised inside a script arrive wrapped: "ERR ... script: ..." keeps the
    // original code after "ERR"; Redis 7 passes error_reply() codes through unchanged.
    if (code == "ERR" && (rest.startsWith("AUTH") || rest.contains("invalid password")))
        return {ErrorKind::Auth, full};
    return {ErrorKind::Reply, full};
}

bool isReadOnlyReply(const QByteArray& text)
{
    return text.startsWith("READONLY ") || text == "READONLY";
}

} // namespace tollgate
