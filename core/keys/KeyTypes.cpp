#include "core/keys/KeyTypes.h"

namespace tollgate {

QByteArray expectedRedisType(const KeySchema::Parsed& parsed)
{
    using Kind = KeySchema::Parsed::Kind;
    switch (parsed.kind) {
    case Kind::State:
        switch (parsed.algorithm) {
        case Algorithm::FixedWindow:
        case Algorithm::TokenBucket:
            return QByteArrayLiteral("string");
        case Algorithm::SlidingLog:
            return QByteArrayLiteral("zset");
        case Algorithm::SlidingWindow:
            return QByteArrayLiteral("hash");
        }
        return {};
    case Kind::ActionBan:
    case Kind::UserBan:
    case Kind::Overrides:
    case Kind::Policy:
    case Kind::Stats:
        return QByteArrayLiteral("hash");
    case Kind::PolicyIndex:
        return QByteArrayLiteral("set");
    case Kind::OverrideIndex:
        return QByteArrayLiteral("zset");
    case Kind::UserAudit:
    case Kind::Audit:
    case Kind::PolicyHistory:
        return QByteArrayLiteral("stream");
    case Kind::Foreign:
        return {};
    }
    return {};
}

QByteArray wrongTypeExpected(const KeySchema& schema, const QByteArray& key,
                             const QByteArray& actualType)
{
    if (actualType.isEmpty() || actualType == "none")
        return {};
    const QByteArray expected = expectedRedisType(schema.parse(key));
    return expected.isEmpty() || expected == actualType ? QByteArray() : expected;
}

} // namespace tollgate
