-- bench/bench_hit_ladder.sh, step 1 of the ladder from the minimal fixed window
-- (bench/reference/fixed_window.lua) to hit.lua's fixed-window fast path.
-- This step: short-form keys and arguments (3 keys, 5 args): the minimal body, called as hit.lua is.
-- KEYS and ARGV are hit.lua's short form (lua/README.md); each step adds one part to the last.
local key = KEYS[3]
local count = redis.call('INCR', key)
if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[5]) end
return count <= tonumber(ARGV[4]) and 1 or 0
