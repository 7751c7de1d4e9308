-- bench/bench_hit_ladder.sh, step 2 of the ladder from the minimal fixed window
-- (bench/reference/fixed_window.lua) to hit.lua's fixed-window fast path.
-- This step: + ban check: one EXISTS of both ban keys (the state key counted three times).
-- KEYS and ARGV are hit.lua's short form (lua/README.md); each step adds one part to the last.
local key = KEYS[3]
local found = redis.call('EXISTS', KEYS[1], KEYS[2], key, key, key)
if found ~= 0 and found ~= 3 then return -1 end
local count = redis.call('INCR', key)
if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[5]) end
return count <= tonumber(ARGV[4]) and 1 or 0
