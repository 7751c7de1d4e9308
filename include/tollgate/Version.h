#pragma once

// The library's version and the script contract its Lua scripts follow.
#include "core/Version.h"
