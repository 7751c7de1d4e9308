#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"

namespace tollgate {

/// Deletes keys picked by hand (the console's key inspector) the way every other write is
/// done: a ban through unban.lua, a counter through reset.lua (both write the user's audit
/// stream and publish the event), anything else through delete.lua (global audit, event).
/// Never a bare DEL, so no key disappears without a trail.
class KeyDeletion
{
public:
    struct Outcome
    {
        QList<QByteArray> deleted; // existed and are gone
        QList<QByteArray> missing; // were already gone (still audited)
        QList<QPair<QByteArray, Error>> failed;
    };

    KeyDeletion(Client* client, KeySchema schema);

    /// One script call per key (keys of different users may live on different Cluster
    /// nodes); all run, and the outcome lists each key once. Actor and reason are required.
    void remove(const QList<QByteArray>& keys, const QString& actor, const QString& reason,
                Context context, Callback<Outcome> done) const;

private:
    void removeOne(const QByteArray& key, const QString& actor, const QString& reason,
                   Callback<qint64> done) const;

    Client* m_client;
    KeySchema m_schema;
};

} // namespace tollgate
