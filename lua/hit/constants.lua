local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local FIXED_KEYS = 4            -- KEYS before the state keys
local FIXED_ARGS = 12           -- ARGV before the limit/window pairs
local MAX_WINDOWS = 8
local MAX_ID = 1024
local MAX_WINDOW_MS = 31536000000
local MAX_COUNT = 1000000000
local MAX_STORED = 2 ^ 50       -- counters saturate here, so every product below stays exact
local MAX_LOG = 100000          -- a sliding log keeps at most one zset member per unit in its window
local MAX_BAN_MS = 3153600000000
local MAX_OFFSET_MS = 64800000
local AUDIT_TTL_MS = 7776000000 -- a user's audit stream expires 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000
local MINUTE, HOUR, DAY, WEEK = 60000, 3600000, 86400000, 604800000

