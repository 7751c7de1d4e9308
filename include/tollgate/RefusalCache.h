#pragma once

// RefusalCache and RefusalCacheFeed: refusals answered from memory until they end, kept true
// to Redis by the events channel.
#include "core/limiter/RefusalCache.h"
#include "core/limiter/RefusalCacheFeed.h"
