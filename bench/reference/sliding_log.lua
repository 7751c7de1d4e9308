-- The minimal atomic sliding log, the reference bench_hit measures hit.lua against.
-- KEYS[1] the log (a sorted set of hit times); ARGV[1] limit, ARGV[2] window in ms.
-- Returns 1 allowed, 0 denied. The member is the server's microsecond time: calls run one at a
-- time, so two of them see the same microsecond only if the clock stands still.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now, t[1] .. '.' .. t[2])
redis.call('PEXPIRE', KEYS[1], window)
return 1
