#pragma once

// Result<T> (a value or an Error), Status, Error and ErrorKind: what every operation answers.
#include "core/redis/Result.h"
