#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <optional>

namespace tollgate {

enum class Algorithm {
    FixedWindow,   // one or several windows at once, all-or-nothing
    SlidingLog,    // exact: one sorted-set entry per counted hit
    SlidingWindow, // two fixed windows, the previous one weighted by overlap
    TokenBucket,   // GCRA: a quota refilled continuously, hits spend `cost` tokens
};

/// "fixed_window", "sliding_log", "sliding_window", "token_bucket" (the names the Lua
/// scripts and policy hashes use).
QByteArray algorithmName(Algorithm algorithm);
/// Accepts the names above and the alias "gcra".
std::optional<Algorithm> algorithmFromName(const QByteArray& name);
/// The short code inside state keys: fw, sl, sw, tb.
QByteArray algorithmCode(Algorithm algorithm);
std::optional<Algorithm> algorithmFromCode(QByteArrayView code);

} // namespace tollgate
