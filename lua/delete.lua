--[[ delete.lua: delete one key found by the key inspector, leaving a trail in the global audit.

KEYS[1]  the key to delete (anything under the prefix that is not a ban or a counter: those go
         through unban.lua and reset.lua, which also write the user's own audit stream)
KEYS[2]  global audit stream <p>:audit

ARGV[1]  raw user id the key belongs to, "" if none (audit entry and event only)
ARGV[2]  raw action id, "" if none
ARGV[3]  actor, required
ARGV[4]  reason, required
ARGV[5]  events channel, "" = do not publish

Deletes KEYS[1], appends "delete_key" to the global audit stream (MAXLEN ~ 100000) with the key
name in field detail, publishes "delete\n<byte length of user>\n<user><action>".
Deleting the global audit stream itself leaves it holding just this entry.
Reply: 1 if the key existed, 0 if it was already gone (the entry is written either way).
Errors: TG_INVALID (bad argument), TG_CORRUPT (the audit key is not a stream), both before any write.
]]

if #KEYS ~= 2 or #ARGV ~= 5 then return redis.error_reply('TG_INVALID delete takes 2 keys and 5 arguments') end
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if actor == '' then return redis.error_reply('TG_INVALID actor is required') end
if reason == '' then return redis.error_reply('TG_INVALID reason is required') end

local kind = redis.call('TYPE', KEYS[2]).ok
if kind ~= 'none' and kind ~= 'stream' and KEYS[1] ~= KEYS[2] then
  return redis.error_reply('TG_CORRUPT key ' .. KEYS[2] .. ' is a ' .. kind .. ', expected a stream')
end

local deleted = redis.call('DEL', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', '100000', '*', 'event', 'delete_key', 'user', user,
  'action', action, 'actor', actor, 'reason', reason, 'until_ms', '0', 'detail', KEYS[1])
if channel ~= '' then redis.call('PUBLISH', channel, 'delete\n' .. #user .. '\n' .. user .. action) end
return deleted
