#pragma once

#include "tollgate/KeySchema.h"

namespace tollgate {

/// The Redis type a key of our schema must have (README "Key schema"): fixed-window and
/// token-bucket state are strings, sliding logs zsets, sliding-window counters, bans, policies
/// and stats hashes, audit trails streams. Empty for keys outside the schema (Foreign).
QByteArray expectedRedisType(const KeySchema::Parsed& parsed);

/// For a key found with `actualType` (TYPE): empty when it fits the schema (or is not ours,
/// or is gone), else what it should be, e.g. "hash" for a string where a ban belongs. Such a
/// key makes every script touching it fail with WRONGTYPE.
QByteArray wrongTypeExpected(const KeySchema& schema, const QByteArray& key,
                             const QByteArray& actualType);

} // namespace tollgate
