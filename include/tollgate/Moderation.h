#pragma once

// Moderation: ban, unban and reset, each with an actor, a reason and an audit entry.
#include "core/moderation/Moderation.h"
