-- bench/bench_hit_ladder.sh, step 5 of the ladder from the minimal fixed window
-- (bench/reference/fixed_window.lua) to hit.lua's fixed-window fast path.
-- This step: + the reply of hit.lua: seven fields, the tier as a status string.
-- KEYS and ARGV are hit.lua's short form (lua/README.md); each step adds one part to the last.
local key = KEYS[3]
local found = redis.call('EXISTS', KEYS[1], KEYS[2], key, key, key)
if found ~= 0 and found ~= 3 then return -1 end
if not redis.acl_check_cmd('SET', key, ARGV[3], 'KEEPTTL') then return -2 end
local count = redis.pcall('INCRBY', key, ARGV[3])
if type(count) ~= 'number' then return -3 end
local limit = ARGV[4] + 0
local ttl = redis.call('PTTL', key)
if ttl < 0 then redis.call('PEXPIRE', key, ARGV[5]) end
return { 1, 'ok', count, limit, limit - count, ttl, 0 }
