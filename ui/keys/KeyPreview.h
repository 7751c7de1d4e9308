#pragma once

#include "ui/keys/ValueDecoding.h"

#include <vector>

namespace tollgate::ui {

/// The Keys table's Value column: a few words, and the value as read for the tooltip.
struct KeyPreview
{
    QString text;
    QString raw;
};

/// The few bounded reads per row behind the Value column: a string's first bytes, a
/// sliding-window hash's three fields, a statistics ring's totals, a ban hash's four fields, a
/// sliding log's size and, with the server's time, the two members its count in the window
/// takes (the newest, and the newest at or before the window's start), the size of anything
/// else. Empty for a type with nothing to read.
std::vector<Command> previewCommands(const QByteArray& type, const QByteArray& key,
                                     const KeySchema::Parsed& place, qint64 serverNowUs);
/// The replies to previewCommands(), in order, in a few words: Tollgate's own keys as their
/// decoder sums them up (a counter against its limit, a token bucket's tokens and next one, the
/// count in a sliding log's or sliding window's window, a ban's end, author and reason, a ring's
/// totals), other values as text or a count.
KeyPreview previewOf(const QByteArray& type, const std::vector<Reply>& replies,
                     const ValueContext& context);

} // namespace tollgate::ui
