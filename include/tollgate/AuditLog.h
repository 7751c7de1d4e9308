#pragma once

// AuditLog: a user's or the global audit trail; notes added by hand.
#include "core/audit/AuditLog.h"
