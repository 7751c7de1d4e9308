#pragma once

// Limiter: counts hits against a policy, one atomic script call per hit.
#include "core/limiter/Limiter.h"
