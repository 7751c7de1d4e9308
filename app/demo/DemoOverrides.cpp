#include "app/demo/DemoOverrides.h"

#include "tollgate/Overrides.h"

namespace tollgate {

void DemoOverrides::seed(Client* client, const KeySchema& schema, const QString& actor,
                         QObject* context)
{
    constexpr qint64 kMinute = 60'000;
    constexpr qint64 kHour = 60 * kMinute;
    constexpr qint64 kDay = 24 * kHour;

    OverrideRequest trial;
    trial.user = trialUser();
    trial.action = "search";
    trial.windows = {{20, kMinute}, {200, kHour}, {2000, kDay}}; // twice the example policy
    trial.durationMs = 30 * kDay;
    trial.actor = actor;
    trial.reason = QStringLiteral("enterprise trial: twice the search limits");

    OverrideRequest exempt;
    exempt.user = exemptUser();
    exempt.action = "api";
    exempt.kind = OverrideKind::Unlimited;
    exempt.durationMs = 2 * kHour;
    exempt.actor = actor;
    exempt.reason = QStringLiteral("load test of the partner API");

    const OverrideStore store(client, schema);
    for (const OverrideRequest& request : {trial, exempt})
        store.set(request, context, [](const Result<Override>&) {});
}

} // namespace tollgate
