#pragma once

#include "tollgate/Result.h"
#include "tollgate/ServerOptions.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <vector>

namespace tollgate {

/// One pool of a nutcracker (Twemproxy) YAML file: what Tollgate needs of it.
struct NutcrackerPool
{
    QString name;
    QString listen;  // "host:port" as written
    QString hashTag; // "" when the pool has none
    bool redis = false;
    std::vector<NodeAddress> servers;
    /// Each server's name in nutcracker's stats: its [name], or "host:port" without one.
    QStringList serverNames;
};

/// Reads pool `pool` from nutcracker's configuration format: a pool name at the start of a line
/// and its indented "key: value" lines, servers as "- host:port:weight [name]". Only that
/// subset of YAML (what nutcracker itself documents); InvalidInput naming the line otherwise,
/// NotFound for a missing pool.
Result<NutcrackerPool> parseNutcrackerPool(const QByteArray& yaml, const QString& pool);
/// The same from a file; Io when it cannot be read.
Result<NutcrackerPool> readNutcrackerPool(const QString& path, const QString& pool);

} // namespace tollgate
