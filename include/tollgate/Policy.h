#pragma once

// Policy: how one action is limited (algorithm, windows, cost, warn level, ban, failure
// policy).
#include "core/policies/Policy.h"
