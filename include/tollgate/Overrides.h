#pragma once

// OverrideStore: other limits, or none, for one user, with an end, an actor and a reason.
#include "core/moderation/Overrides.h"
