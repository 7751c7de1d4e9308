-- The minimal atomic fixed window, the reference bench_hit measures hit.lua against.
-- KEYS[1] the counter; ARGV[1] limit, ARGV[2] window in ms. Returns 1 allowed, 0 denied.
-- INCR, PTTL, and PEXPIRE only when the counter has no TTL (new, or left without one).
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return count <= tonumber(ARGV[1]) and 1 or 0
