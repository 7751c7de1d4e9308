#pragma once

// Tollgate's public C++ API, all of it: include this, or the one header of the class you use
// (<tollgate/Limiter.h>). Only what these headers name is the library's API, and only it is
// covered by the package's version (docs/architecture.md, "The public API and its version");
// the headers they include on the way are the implementation's, and may change at any release.
#include "AuditLog.h"
#include "Blocking.h"
#include "Client.h"
#include "ConnectionOptions.h"
#include "HitResult.h"
#include "KeySchema.h"
#include "Limiter.h"
#include "Moderation.h"
#include "Overrides.h"
#include "Policy.h"
#include "PolicyStore.h"
#include "Refunds.h"
#include "RefusalCache.h"
#include "Repair.h"
#include "Result.h"
#include "Subjects.h"
#include "Version.h"
