#pragma once

// ConnectionOptions: where and how to connect, built from a redis://, rediss://, unix:// or
// redis+sentinel:// URL.
#include "core/client/ConnectionOptions.h"
