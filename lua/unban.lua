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

if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 2 end -- the contract query

local AUDIT_TTL_MS = 7776000000          -- a user's history lives 90 days after its last entry

local function int(x) return string.format('%d', x) end

---------------------------------------------------------------- the write prologue (same in every write script)
local function expect_type(key, wanted)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then
    return redis.error_reply('TG_CORRUPT key ' .. key .. ' is a ' .. kind .. ', expected a ' .. wanted)
  end
end

-- The audit entry, in the user's stream and (unless off) the global one.
local function audit(writes, user_stream, global, entry)
  writes[#writes + 1] = { 'XADD', user_stream, 'MAXLEN', '~', '1000', '*', unpack(entry) }
  writes[#writes + 1] = { 'PEXPIRE', user_stream, int(AUDIT_TTL_MS) }
  if global ~= '' and global ~= user_stream then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', '100000', '*', unpack(entry) }
  end
end

-- Every write is allowed to this ACL user, or none runs.
local function apply(writes)
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
        '; nothing was written')
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end

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
