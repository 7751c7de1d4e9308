#pragma once

#include "core/metrics/MetricsSnapshot.h"

namespace tollgate {

/// The two text formats Prometheus reads. Both carry the same families and samples; they
/// differ in counter/info family names, `# EOF` and the content type.
enum class ExpositionFormat
{
    Prometheus004, // text/plain; version=0.0.4
    OpenMetrics,   // application/openmetrics-text; version=1.0.0
};

/// OpenMetrics when the Accept header asks for application/openmetrics-text, else 0.0.4.
ExpositionFormat negotiateFormat(const QByteArray& acceptHeader);
QByteArray contentType(ExpositionFormat format);

/// The exposition of `snapshot` (docs/metrics.md lists every family). Action ids become label
/// values as UTF-8, or percent-escaped (KeySchema::escape) when they are not valid UTF-8.
QByteArray renderMetrics(const MetricsSnapshot& snapshot, ExpositionFormat format);

} // namespace tollgate
