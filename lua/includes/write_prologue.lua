-- What every write script starts with: the contract query, then the shared constants, argument
-- and key checks, the write plan, the audit writer and the events.
--@include "includes/contract_query.lua"

--@include "includes/constants.lua"
--@include "includes/arguments.lua"
--@include "includes/key_types.lua"
--@include "includes/write_plan.lua"
--@include "includes/audit.lua"
--@include "includes/events.lua"
