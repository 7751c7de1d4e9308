#pragma once

#include "ui/keys/ValueDecoding.h"

namespace tollgate::ui {

/// The Keys table's Value column: a few words, and the value as read for the tooltip.
struct KeyPreview
{
    QString text;
    QString raw;
};

/// The one bounded read per row behind the Value column: a string's first bytes, a
/// sliding-window hash's three fields, a statistics ring's totals, the size of anything else.
Command previewCommand(const QByteArray& type, const QByteArray& key,
                       const KeySchema::Parsed& place);
/// The reply to previewCommand() in a few words: Tollgate's own keys as their decoder sums
/// them up (a counter against its limit, a token bucket's tokens and next one, the count of a
/// sliding window, a ring's totals), other values as text or a count.
KeyPreview previewOf(const QByteArray& type, const Reply& reply, const ValueContext& context);

} // namespace tollgate::ui
