-- bench/bench_hit_ladder.sh, step 4 of the ladder from the minimal fixed window
-- (bench/reference/fixed_window.lua) to hit.lua's fixed-window fast path.
-- This step: + INCRBY through pcall: a counter of the wrong type is refused, not raised.
-- KEYS and ARGV are hit.lua's short form (lua/README.md); each step adds one part to the last.
local key = KEYS[3]
local found = redis.call('EXISTS', KEYS[1], KEYS[2], key, key, key)
if found ~= 0 and found ~= 3 then return -1 end
if not redis.acl_check_cmd('SET', key, ARGV[3], 'KEEPTTL') then return -2 end
local count = redis.pcall('INCRBY', key, ARGV[3])
if type(count) ~= 'number' then return -3 end
if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[5]) end
return count <= tonumber(ARGV[4]) and 1 or 0
