#include "core/policies/Duration.h"

#include <QRegularExpression>
#include <array>

namespace tollgate {

namespace {

struct Unit
{
    const char* suffix;
    qint64 ms;
};

// Longest suffixes first so "ms" is not read as "m" followed by garbage.
constexpr std::array<Unit, 6> kUnits{{
    {"ms", 1}, {"w", 7 * kMillisPerDay}, {"d", kMillisPerDay}, {"h", 3'600'000},
    {"m", 60'000}, {"s", 1000},
}};

} // namespace

Result<qint64> parseDuration(const QString& text)
{
    static const QRegularExpression part(QStringLiteral("(\\d+)(ms|w|d|h|m|s)"));
    const QString trimmed = text.trimmed().toLower();
    auto invalid = [&text](const QString& why) {
        return Result<qint64>(ErrorKind::InvalidInput,
                              QStringLiteral("invalid duration '") + text +
                                  QStringLiteral("': ") + why);
    };
    if (trimmed.isEmpty())
        return invalid(QStringLiteral("empty"));
    qint64 total = 0;
    int position = 0;
    auto it = part.globalMatch(trimmed);
    while (it.hasNext()) {
        const auto match = it.next();
        if (match.capturedStart() != position)
            break;
        bool ok = false;
        const qint64 amount = match.captured(1).toLongLong(&ok);
        qint64 unitMs = 0;
        for (const auto& unit : kUnits) {
            if (match.captured(2) == QLatin1String(unit.suffix))
                unitMs = unit.ms;
        }
        if (!ok || amount > 100 * kMillisPerYear / unitMs)
            return invalid(QStringLiteral("too large"));
        total += amount * unitMs;
        position = match.capturedEnd();
    }
    if (position != trimmed.size())
        return invalid(QStringLiteral("use a number with a unit: 500ms, 30s, 10m, 1h, 1d, 1w"));
    return total;
}

QString formatDuration(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("0s");
    if (ms % 1000 != 0)
        return QString::number(ms) + QStringLiteral("ms");
    QString out;
    qint64 rest = ms;
    for (const auto& unit : kUnits) {
        if (unit.ms < 1000)
            continue;
        if (rest >= unit.ms) {
            out += QString::number(rest / unit.ms) + QLatin1String(unit.suffix);
            rest %= unit.ms;
        }
    }
    return out;
}

} // namespace tollgate
