--[[ unban.lua: lift bans, leaving a trail even when there was nothing to lift.

KEYS[1]     user audit stream <p>:{<user>}:audit
KEYS[2]     global audit stream <p>:audit; "" or KEYS[1] again = no global mirror (Redis Cluster)
KEYS[3..]   the ban hashes to delete (found by the client: the user-wide one and/or action ones); may be none

ARGV[1]  raw user id (for the audit entries and the event)
ARGV[2]  raw action id; "" = all actions
ARGV[3]  actor, required
ARGV[4]  reason, required
ARGV[5]  events channel, "" = do not publish

Deletes the ban keys, appends an audit entry "unban" (with field count = keys deleted, even 0) to the
user's stream and to the global one, publishes "unban\n<byte length of user>\n<user><action>".
All of it or nothing.
Reply: number of ban keys deleted.
Errors: TG_INVALID (bad argument), TG_CORRUPT (an audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 2 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 2 and does nothing else.
]]

--@include "includes/contract_query.lua"

local AUDIT_TTL_MS = 7776000000          -- a user's history lives 90 days after its last entry

local function int(x) return string.format('%d', x) end

--@include "includes/expect_type.lua"
--@include "includes/audit.lua"
--@include "includes/apply.lua"
---------------------------------------------------------------- arguments
if #KEYS < 2 or #ARGV ~= 5 then return redis.error_reply('TG_INVALID unban takes 2+ keys and 5 arguments') end
local user_stream, global = KEYS[1], KEYS[2]
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if actor == '' then return redis.error_reply('TG_INVALID actor is required') end
if reason == '' then return redis.error_reply('TG_INVALID reason is required') end

local bad = expect_type(user_stream, 'stream') or (global ~= '' and expect_type(global, 'stream'))
if bad then return bad end

---------------------------------------------------------------- the writes
local writes, deleted, seen = {}, 0, {}
for i = 3, #KEYS do
  if not seen[KEYS[i]] then             -- a key listed twice is deleted (and counted) once
    seen[KEYS[i]] = true
    deleted = deleted + redis.call('EXISTS', KEYS[i])   -- nothing runs in between: DEL deletes these
    writes[#writes + 1] = { 'DEL', KEYS[i] }
  end
end
audit(writes, user_stream, global, { 'event', 'unban', 'user', user, 'action', action, 'actor', actor,
  'reason', reason, 'until_ms', '0', 'count', int(deleted) })
if channel ~= '' then
  writes[#writes + 1] = { 'PUBLISH', channel, 'unban\n' .. #user .. '\n' .. user .. action }
end
return apply(writes) or deleted
