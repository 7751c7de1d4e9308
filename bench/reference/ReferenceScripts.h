#pragma once

#include "core/limiter/HitLoad.h"
#include "tollgate/Client.h"
#include "tollgate/Policy.h"

#include <QString>

// The minimal atomic scripts of bench/reference/*.lua, one per algorithm: what each algorithm
// costs the server with nothing else (no ban check, no id check, a one-integer reply), the
// yardstick bench_hit divides Tollgate's server time per hit by.
namespace tollgate::bench {

/// SCRIPT LOADs the reference of `algorithm` (embedded from bench/reference/<name>.lua);
/// returns its SHA1, or an empty array after printing why it failed.
QByteArray loadReferenceScript(tollgate::Client& admin, tollgate::Algorithm algorithm);

/// The key the reference keeps for `user` (one per user, in the user's hash-tag slot as
/// Tollgate's are).
QByteArray referenceKey(const QByteArray& user, tollgate::Algorithm algorithm);

/// The arguments of EVALSHA for the reference, with the policy's first window and limit.
tollgate::Command referenceCall(const QByteArray& sha, const QByteArray& key,
                                const tollgate::Policy& policy);

/// The closed load of runHitLoad, same connections, pipeline and users, with the reference
/// script instead of the Limiter.
tollgate::HitLoadFigures runReferenceLoad(const tollgate::ConnectionOptions& options,
                                          const tollgate::HitLoadOptions& load,
                                          const QByteArray& sha, const tollgate::Policy& policy);

} // namespace tollgate::bench
