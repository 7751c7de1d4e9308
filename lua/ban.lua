--[[ ban.lua: ban a user from one action or from every action, by hand.

KEYS[1]  the ban hash: <p>:{<user>}:<action>:ban (one action) or <p>:{<user>}:ban (every action)
KEYS[2]  user audit stream <p>:{<user>}:audit
KEYS[3]  global audit stream <p>:audit; "" or KEYS[2] again = no global mirror (Redis Cluster)

ARGV[1]  raw user id (for the audit entries and the event)
ARGV[2]  raw action id; "" = every action (user-wide ban)
ARGV[3]  actor, required
ARGV[4]  reason, required
ARGV[5]  duration_ms, 0 = none
ARGV[6]  until_ms, absolute epoch ms, 0 = none; both 0 = permanent, both set = TG_INVALID
ARGV[7]  events channel, "" = do not publish

Writes the hash {reason, actor, created_ms, until_ms (0 = permanent), scope "user"|"action", action,
source "manual"}, replacing any previous ban on that key, with PEXPIREAT until_ms (no TTL when
permanent); appends an audit entry "ban" to the user's stream and to the global one; publishes
"ban\n<byte length of user>\n<user><action>". All of it or nothing.
Reply: { until_ms, created_ms }
Errors: TG_INVALID (bad argument, until_ms not in the future), TG_CORRUPT (a key of the wrong type),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
--@include "includes/ban_record.lua"

local MAX_EPOCH_MS = 253402300799999     -- 9999-12-31

---------------------------------------------------------------- arguments
if #KEYS ~= 3 or #ARGV ~= 7 then return redis.error_reply('TG_INVALID ban takes 3 keys and 7 arguments') end
local ban, user_stream, global = KEYS[1], KEYS[2], KEYS[3]
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[7]
local duration_ms, until_ms = to_int(ARGV[5], 17), to_int(ARGV[6], 17)
local bad = required('actor', actor, 'reason', reason)
if bad then return bad end
if not duration_ms or duration_ms > MAX_BAN_MS then
  return redis.error_reply('TG_INVALID duration_ms must be an integer in [0, ' .. int(MAX_BAN_MS) .. ']')
end
if not until_ms or until_ms > MAX_EPOCH_MS then
  return redis.error_reply('TG_INVALID until_ms must be an epoch time in ms, or 0')
end
if duration_ms > 0 and until_ms > 0 then
  return redis.error_reply('TG_INVALID give duration_ms or until_ms, not both')
end

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if until_ms > 0 and until_ms <= now_ms then
  return redis.error_reply('TG_INVALID until_ms ' .. ARGV[6] .. ' is not in the future')
end
if duration_ms > 0 then until_ms = now_ms + duration_ms end

bad = expect_type(ban, 'hash') or expect_type(user_stream, 'stream')
  or (global ~= '' and expect_type(global, 'stream'))
if bad then return bad end

---------------------------------------------------------------- the writes
local writes = {}
ban_writes(writes, ban, action, reason, actor, 'manual', now_ms, until_ms)
audit(writes, user_stream, global, { 'event', 'ban', 'user', user, 'action', action, 'actor', actor,
  'reason', reason, 'until_ms', int(until_ms) })
publish(writes, channel, 'ban', user, action)
return apply(writes) or { until_ms, now_ms }
