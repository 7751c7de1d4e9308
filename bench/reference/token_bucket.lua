-- The minimal atomic token bucket as GCRA, the reference bench_hit measures hit.lua against.
-- KEYS[1] the theoretical arrival time (TAT, microseconds); ARGV[1] limit (the burst),
-- ARGV[2] window in ms (a full bucket refills in it). Returns 1 allowed, 0 denied.
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local window = tonumber(ARGV[2]) * 1000
local interval = window / tonumber(ARGV[1])
local tat = math.max(tonumber(redis.call('GET', KEYS[1])) or 0, now)
local next_tat = tat + interval
if next_tat - now > window then return 0 end
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
return 1
