#pragma once

// PolicyStore: reads and saves policies (compare-and-set on their revision) and their history.
#include "core/policies/PolicyStore.h"
