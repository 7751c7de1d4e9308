#pragma once

// waitFor(): runs an asynchronous operation and waits for its result (for tools; never on a
// GUI thread).
#include "core/client/Blocking.h"
