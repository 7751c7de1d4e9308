#pragma once

#include <QByteArray>
#include <QString>

namespace tollgate {

/// What went wrong, as a type callers can branch on. Never match on message text.
enum class ErrorKind {
    Io,           // socket error, connection refused, TLS handshake failure
    Timeout,      // connect or command deadline passed
    Closed,       // not connected (or the connection went away with the command in flight)
    Protocol,     // the server sent something that is not RESP
    Auth,         // AUTH failed (WRONGPASS, NOAUTH)
    NoPerm,       // the ACL user may not run this command or touch this key
    NoScript,     // EVALSHA for a script the server does not have
    WrongType,    // a key holds the wrong Redis type, or a value of ours has the wrong shape
    Moved,        // Redis Cluster: the slot lives elsewhere
    Ask,          // Redis Cluster: slot migrating
    Busy,         // a script is running too long (BUSY)
    Reply,        // any other error reply from the server
    InvalidInput, // rejected before (or by the script before) anything was written
    Conflict,     // compare-and-set lost: someone else saved first
    NotFound,     // the thing asked for does not exist
    Contract,     // data or scripts of another script contract (lua/README.md, "Contract version")
    Redirect,     // the script wants the call again with other windows (TG_OVERRIDE <windows>)
};

struct Error
{
    ErrorKind kind = ErrorKind::Reply;
    QString message;

    QString toString() const;
};

/// A short stable name for the kind ("io", "timeout", ...), used in JSON output.
QString errorKindName(ErrorKind kind);

/// The one place that turns a Redis error reply ("-WRONGTYPE ...") into a typed Error.
Error classifyErrorReply(const QByteArray& text);
/// Whether an error reply says the server is a replica (READONLY): a primary demoted by a
/// failover, for clients that follow Sentinel.
bool isReadOnlyReply(const QByteArray& text);

} // namespace tollgate
