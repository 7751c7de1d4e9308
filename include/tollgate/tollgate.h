#pragma once

// Tollgate's public C++ API, all of it: include this, or the one header of the class you use
// (<tollgate/Limiter.h>). These headers are the whole of what is installed, and what they
// declare is what the package's version covers (docs/architecture.md, "The public API and its
// version").
#include "tollgate/AuditLog.h"
#include "tollgate/Blocking.h"
#include "tollgate/Client.h"
#include "tollgate/ConnectionOptions.h"
#include "tollgate/HitResult.h"
#include "tollgate/KeySchema.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "tollgate/Overrides.h"
#include "tollgate/Policy.h"
#include "tollgate/PolicyStore.h"
#include "tollgate/Refunds.h"
#include "tollgate/RefusalCache.h"
#include "tollgate/Repair.h"
#include "tollgate/Reply.h"
#include "tollgate/Result.h"
#include "tollgate/ServerOptions.h"
#include "tollgate/Subjects.h"
#include "tollgate/Version.h"
