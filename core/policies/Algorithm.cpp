#include "tollgate/Policy.h"

#include <array>

namespace tollgate {

namespace {

struct AlgorithmNames
{
    Algorithm algorithm;
    const char* name;
    const char* code;
};

constexpr std::array<AlgorithmNames, 4> kNames{{
    {Algorithm::FixedWindow, "fixed_window", "fw"},
    {Algorithm::SlidingLog, "sliding_log", "sl"},
    {Algorithm::SlidingWindow, "sliding_window", "sw"},
    {Algorithm::TokenBucket, "token_bucket", "tb"},
}};

} // namespace

QByteArray algorithmName(Algorithm algorithm)
{
    for (const auto& entry : kNames) {
        if (entry.algorithm == algorithm)
            return entry.name;
    }
    return {};
}

std::optional<Algorithm> algorithmFromName(const QByteArray& name)
{
    if (name == "gcra")
        return Algorithm::TokenBucket;
    for (const auto& entry : kNames) {
        if (name == entry.name)
            return entry.algorithm;
    }
    return std::nullopt;
}

QByteArray algorithmCode(Algorithm algorithm)
{
    for (const auto& entry : kNames) {
        if (entry.algorithm == algorithm)
            return entry.code;
    }
    return {};
}

std::optional<Algorithm> algorithmFromCode(QByteArrayView code)
{
    for (const auto& entry : kNames) {
        if (code == entry.code)
            return entry.algorithm;
    }
    return std::nullopt;
}

} // namespace tollgate
