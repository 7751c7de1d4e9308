#pragma once

// Refunds: gives back the units of a hit, or charges extra ones (penalties).
#include "core/moderation/Refunds.h"
