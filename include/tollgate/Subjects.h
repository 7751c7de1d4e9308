#pragma once

// Subjects: every user x action with state or a ban, and its usage now.
#include "core/subjects/Subjects.h"
