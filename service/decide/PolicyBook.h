#pragma once

#include "tollgate/Policy.h"

#include <QHash>
#include <QMutex>
#include <memory>
#include <vector>

namespace tollgate::service {

/// The policies decisions are made with, by action: the stored ones (edited live in the
/// console, reread on every policy event), the configuration's own where none is stored.
/// Readers take an immutable snapshot; replace() swaps it. Thread-safe.
class PolicyBook
{
public:
    using Snapshot = std::shared_ptr<const QHash<QByteArray, Policy>>;

    PolicyBook();
    Snapshot current() const;
    /// `configured` first, then `stored` over them (a stored policy wins).
    void replace(const std::vector<Policy>& configured, const std::vector<Policy>& stored);

private:
    mutable QMutex m_mutex;
    Snapshot m_snapshot;
};

} // namespace tollgate::service
