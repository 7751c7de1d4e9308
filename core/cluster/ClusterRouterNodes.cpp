// Kept apart from ClusterRouter.cpp: what other cluster code may borrow from a router.
#include "core/cluster/ClusterRouter.h"

namespace tollgate {

NodeClients& ClusterRouter::nodeClients()
{
    return m_nodes;
}

} // namespace tollgate
