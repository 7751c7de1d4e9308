#pragma once

// KeySchema: where Tollgate keeps things in Redis, under a key prefix.
#include "core/keys/KeySchema.h"
