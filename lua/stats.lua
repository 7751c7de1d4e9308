--[[ stats.lua: record one hit's outcome in the per-action per-second statistics the console charts.

KEYS[1]   stats hash of the action   <p>:stats:<action>
ARGV[1]   tier of the hit: "ok" | "warn" | "deny" | "banned"  (hit.lua's reply)
ARGV[2]   cost of the hit, integer >= 1

Reply: the server time in seconds the hit was counted under.
Layout: a ring of 120 one-second slots, fields "<slot>:t" (the second the slot holds),
"<slot>:h" hits, "<slot>:c" cost, "<slot>:w" warn, "<slot>:d" denied (deny + banned),
"<slot>:b" banned, with slot = second % 120. A slot is cleared when a new second claims it,
so the hash stays bounded; the key expires an hour after the last hit.
Call it after hit.lua (it is separate so Redis Cluster keeps every hit in its user's slot).
]]

local tier = ARGV[1]
local cost = ARGV[2] and ARGV[2]:match('^%d+$') and #ARGV[2] <= 10 and tonumber(ARGV[2])
if tier ~= 'ok' and tier ~= 'warn' and tier ~= 'deny' and tier ~= 'banned' then
  return redis.error_reply('TG_INVALID tier must be ok, warn, deny or banned')
end
if not cost or cost < 1 or cost > 1000000000 then
  return redis.error_reply('TG_INVALID cost must be an integer from 1 to 1000000000')
end

local now = redis.call('TIME')
local second = tonumber(now[1])
local slot = tostring(second % 120)

if redis.call('HGET', KEYS[1], slot .. ':t') ~= tostring(second) then
  redis.call('HSET', KEYS[1], slot .. ':t', second, slot .. ':h', 0, slot .. ':c', 0,
             slot .. ':w', 0, slot .. ':d', 0, slot .. ':b', 0)
end
redis.call('HINCRBY', KEYS[1], slot .. ':h', 1)
redis.call('HINCRBY', KEYS[1], slot .. ':c', cost)
if tier == 'warn' then redis.call('HINCRBY', KEYS[1], slot .. ':w', 1) end
if tier == 'deny' or tier == 'banned' then redis.call('HINCRBY', KEYS[1], slot .. ':d', 1) end
if tier == 'banned' then redis.call('HINCRBY', KEYS[1], slot .. ':b', 1) end
redis.call('PEXPIRE', KEYS[1], 3600000)
return second
