-- The minimal atomic sliding-window counter, the reference bench_hit measures hit.lua against.
-- KEYS[1] a hash holding two buckets (w: the current window's number, cur, prev); ARGV[1] limit,
-- ARGV[2] window in ms. Returns 1 allowed, 0 denied. The previous bucket counts in proportion
-- to how much of it the sliding window still covers.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local current = math.floor(now / window)
local stored = redis.call('HMGET', KEYS[1], 'w', 'cur', 'prev')
local w, cur, prev = tonumber(stored[1]), tonumber(stored[2]) or 0, tonumber(stored[3]) or 0
if w ~= current then
  prev = (w == current - 1) and cur or 0
  cur = 0
end
local covered = 1 - (now - current * window) / window
if prev * covered + cur >= limit then return 0 end
redis.call('HSET', KEYS[1], 'w', current, 'cur', cur + 1, 'prev', prev)
redis.call('PEXPIRE', KEYS[1], 2 * window)
return 1
