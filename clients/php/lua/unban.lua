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

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

-- What every write script starts with: the contract query, then the shared constants, argument
-- and key checks, the write plan, the audit writer and the events.
if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

-- Bounds and lifetimes the scripts share (lua/README.md).
local MAX_BAN_MS = 3153600000000         -- a ban lasts at most 100 years
local MAX_WINDOW_MS = 31536000000        -- a window is at most a year long
local AUDIT_TTL_MS = 7776000000          -- a user's history lives 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000          -- MAXLEN ~ of the global audit stream (a user's: 1000)
-- Argument checks: each returns a TG_INVALID reply for the caller to return, or nil.

local function int(x) return string.format('%d', x) end

-- A non-negative integer of at most `digits` digits, or nil.
local function to_int(s, digits)
  if s and #s <= digits and s:match('^%d+$') then return tonumber(s) end
  return nil
end

-- required('actor', actor, 'reason', reason): the first of these that is empty.
local function required(...)
  local named = { ... }
  for i = 1, #named, 2 do
    if named[i + 1] == '' then return redis.error_reply('TG_INVALID ' .. named[i] .. ' is required') end
  end
end
-- A key of ours holding another type is refused by name (TG_CORRUPT), before any write.
local function expect_type(key, wanted)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then
    return redis.error_reply('TG_CORRUPT key ' .. key .. ' is a ' .. kind .. ', expected a ' .. wanted)
  end
end
-- The write plan: a script queues every write as { command, key, ... } while it reads, then
-- applies them all only when this ACL user may run each one, or none (TG_NOPERM, nothing
-- written). Never a change without its audit entry.
local function apply(writes)
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
        '; nothing was written')
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end
-- The audit writer (lua/README.md, "Global audit stream"): an entry { field, value, ... } queued
-- into the write plan. A global stream that is "" or the call's own key (`besides`) is off.
local function audit_global(writes, global, entry, besides)
  if global ~= '' and global ~= besides then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', int(GLOBAL_AUDIT_LEN), '*', unpack(entry) }
  end
end

-- The user's stream (MAXLEN ~ 1000, expiring 90 days after its last entry) and the global one.
local function audit(writes, user_stream, global, entry)
  writes[#writes + 1] = { 'XADD', user_stream, 'MAXLEN', '~', '1000', '*', unpack(entry) }
  writes[#writes + 1] = { 'PEXPIRE', user_stream, int(AUDIT_TTL_MS) }
  audit_global(writes, global, entry, user_stream)
end
-- The event (lua/README.md, "Events") queued into the write plan when a channel is given:
-- "<event>\n<byte length of user>\n<user><action>", the length keeping ids with newlines apart.
local function publish(writes, channel, event, user, action)
  if channel ~= '' then
    writes[#writes + 1] = { 'PUBLISH', channel, event .. '\n' .. #user .. '\n' .. user .. action }
  end
end
-- unban.lua and reset.lua: delete the keys KEYS[3..] the client found (a key listed twice is
-- deleted and counted once), append an audit entry with field count = keys deleted (even 0) to
-- the user's stream and the global one, publish the event. All of it or nothing.
-- Reply: the number of keys deleted.
local function clear_keys(operation, reason_required)
  if #KEYS < 2 or #ARGV ~= 5 then
    return redis.error_reply('TG_INVALID ' .. operation .. ' takes 2+ keys and 5 arguments')
  end
  local user_stream, global = KEYS[1], KEYS[2]
  local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
  local bad = required('actor', actor) or (reason_required and required('reason', reason))
    or expect_type(user_stream, 'stream') or (global ~= '' and expect_type(global, 'stream'))
  if bad then return bad end

  local writes, deleted, seen = {}, 0, {}
  for i = 3, #KEYS do
    if not seen[KEYS[i]] then
      seen[KEYS[i]] = true
      deleted = deleted + redis.call('EXISTS', KEYS[i])   -- nothing runs in between: DEL deletes these
      writes[#writes + 1] = { 'DEL', KEYS[i] }
    end
  end
  audit(writes, user_stream, global, { 'event', operation, 'user', user, 'action', action, 'actor', actor,
    'reason', reason, 'until_ms', '0', 'count', int(deleted) })
  publish(writes, channel, operation, user, action)
  return apply(writes) or deleted
end

return clear_keys('unban', true)
