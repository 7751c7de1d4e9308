#pragma once

// Repair: finds keys of Tollgate's that lost the TTL they need, and fixes them.
#include "core/keys/Repair.h"
