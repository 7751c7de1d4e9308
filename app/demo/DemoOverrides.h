#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

#include <QList>

namespace tollgate {

/// The demo's overrides, so the console has some to show: a customer on a trial with twice
/// the "search" limits for 30 days, and a load-test client exempt from "api" for 2 hours.
/// Set with OverrideStore (audited, actor `actor`) when the demo starts; a failure only means
/// the demo has none.
struct DemoOverrides
{
    static QByteArray trialUser() { return QByteArrayLiteral("partner-acme"); }
    static QByteArray exemptUser() { return QByteArrayLiteral("load-test-bot"); }

    static void seed(Client* client, const KeySchema& schema, const QString& actor,
                     QObject* context);
};

} // namespace tollgate
