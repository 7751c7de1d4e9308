#pragma once

#include <QJsonObject>
#include <QString>

namespace tollgate::conformance {

/// Compares the fields `expect` names with what a step answered (conformance/README.md
/// "Expectations"): exact values, [lo, hi] ranges, and {"until_boundary", "utc_offset_ms"} for a
/// calendar time. "error" and "keys_without_ttl" are the runner's to check. Returns "" on a match,
/// else "<field> expected <x> got <y>".
QString compareExpectation(const QJsonObject& expect, const QJsonObject& got);

/// The ms from the local clock to the next instant t with (t + offsetMs) % periodMs == 0.
qint64 msUntilBoundary(qint64 periodMs, qint64 offsetMs);

} // namespace tollgate::conformance
