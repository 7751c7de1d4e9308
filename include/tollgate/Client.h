#pragma once

// Client: the Redis client every class of the library works through: one server, a Redis
// Cluster, a Sentinel deployment, or any of them through an SSH tunnel.
#include "core/client/Client.h"
