#pragma once

#include "tollgate/PolicyStore.h"

namespace tollgate {

/// Saves the demo's "like" policy with a past, so the Policies page's History tab has a diff to
/// show: 20 per 10 s by ops-paul, then 5 per 10 s with a warn level by ops-olga, then `current`
/// on top (by `actor`), each with its reason. Delivers what the last save delivers; a Conflict
/// from the first one when "like" exists already (an earlier demo run's, left as it is).
void saveWithDemoRevisions(const PolicyStore& store, const Policy& current, const QString& actor,
                           Context context, Callback<qint64> done);

} // namespace tollgate
