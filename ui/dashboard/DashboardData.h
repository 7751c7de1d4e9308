#pragma once

#include "core/limits/HitResult.h"

#include <QByteArray>
#include <QVector>
#include <vector>

namespace tollgate::ui {

/// Seconds of history the dashboard charts (the stats ring holds 120).
constexpr int kDashboardSeconds = 60;

/// One action's last kDashboardSeconds seconds from its stats ring, oldest first, plus its
/// active bans from the last background scan.
struct ActionStats
{
    QByteArray action;
    QVector<double> hits;    // hits per second (every outcome)
    QVector<double> denials; // deny + banned
    QVector<double> warns;
    QVector<double> banned;
    qint64 activeBans = 0;   // <p>:{user}:<action>:ban keys seen by the last scan

    double lastHits() const { return hits.isEmpty() ? 0 : hits.last(); }
    double lastDenials() const { return denials.isEmpty() ? 0 : denials.last(); }
};

/// From INFO stats / memory / clients.
struct ServerStats
{
    bool valid = false;
    qint64 opsPerSec = 0;
    qint64 usedMemory = 0; // bytes
    qint64 connectedClients = 0;
};

/// A subject close to or over its limit, from a hit.lua peek.
struct NearLimitEntry
{
    QByteArray user;
    QByteArray action;
    HitResult state;
};

} // namespace tollgate::ui
