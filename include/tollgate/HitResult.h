#pragma once

// HitResult: what a hit answers (allowed, tier, count, remaining, retry-after, the ban).
#include "core/limiter/HitResult.h"
