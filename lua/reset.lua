--[[ reset.lua: forget a user's counters (state keys), leaving a trail.

KEYS[1]     user audit stream <p>:{<user>}:audit
KEYS[2..]   the state keys to delete (found by the client); may be none

ARGV[1]  raw user id (for the audit entry and the event)
ARGV[2]  raw action id; "" = all actions
ARGV[3]  actor, required
ARGV[4]  reason, may be empty
ARGV[5]  events channel, "" = do not publish

Deletes the state keys, appends an audit entry "reset" (with field count = keys deleted, even 0),
publishes "reset\n<byte length of user>\n<user><action>". Bans are not touched: that is unban.lua.
Reply: number of keys deleted.
Errors: TG_INVALID (bad argument), TG_CORRUPT (the audit key is not a stream).
]]

if #KEYS < 1 or #ARGV ~= 5 then return redis.error_reply('TG_INVALID reset takes 1+ keys and 5 arguments') end
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if actor == '' then return redis.error_reply('TG_INVALID actor is required') end

local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'none' and kind ~= 'stream' then
  return redis.error_reply('TG_CORRUPT key ' .. KEYS[1] .. ' is a ' .. kind .. ', expected a stream')
end

local deleted = 0
for i = 2, #KEYS do deleted = deleted + redis.call('DEL', KEYS[i]) end

redis.call('XADD', KEYS[1], 'MAXLEN', '~', '1000', '*', 'event', 'reset', 'user', user, 'action', action,
  'actor', actor, 'reason', reason, 'until_ms', '0', 'count', tostring(deleted))
redis.call('PEXPIRE', KEYS[1], 7776000000)   -- the user's history lives 90 days after its last entry
if channel ~= '' then redis.call('PUBLISH', channel, 'reset\n' .. #user .. '\n' .. user .. action) end
return deleted
