#pragma once

#include "tollgate/Client.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Subjects.h"

#include <functional>
#include <memory>
#include <vector>

namespace tollgate {

/// Reads named subjects, everything addressed from the key schema and the policies, no SCAN:
///   raw (the default, for many rows): per fixed window GET + PTTL, and one EXISTS over the
///       ban keys and overrides hashes of every 8 subjects, all pipelined in one batch;
///       HGETALL of the ban hashes only for the subjects of a group where EXISTS found one
///       (bans are rare);
///   peek (the rows on screen, the user detail): hit.lua in peek mode, exact for every
///       algorithm. Algorithms other than fixed window are always peeked: their state needs
///       the server's clock and its shape is the script's own.
/// A bad key (wrong type, not a number) is named in that subject's `error`; the others are
/// unaffected. `done` runs on the client's worker thread with one Subject per key, in order.
class SubjectReader
{
public:
    enum class Mode
    {
        Raw,
        Peek
    };

    SubjectReader(Client* client, KeySchema schema, std::shared_ptr<const PolicyCatalog> policies);

    void read(const std::vector<SubjectKey>& keys, Mode mode,
              std::function<void(std::vector<Subject>)> done) const;
    /// read(), and what it cost the server: the commands it sent, a script's inner ones
    /// estimated as the client's load figure counts them (Client::commandCount).
    using CountedDone = std::function<void(std::vector<Subject>, quint64 commands)>;
    /// With `mayHaveBans` (one flag per key), the caller already knows which subjects may have
    /// a ban key or an overrides hash (a scan that lists every key of their users saw those
    /// keys): no EXISTS round, and only the flagged subjects' ban hashes are read. Three
    /// lookups of keys that are not there cost the server more than a counter's GET and PTTL.
    void readCounted(const std::vector<SubjectKey>& keys, Mode mode, CountedDone done,
                     const std::vector<bool>* mayHaveBans = nullptr) const;

private:
    Client* m_client;
    KeySchema m_schema;
    std::shared_ptr<const PolicyCatalog> m_policies;
};

} // namespace tollgate
