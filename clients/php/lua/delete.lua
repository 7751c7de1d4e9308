--[[ delete.lua: delete one key found by the key inspector, leaving a trail in the global audit.

KEYS[1]  the key to delete (anything under the prefix that is not a ban or a counter: those go
         through unban.lua and reset.lua, which also write the user's own audit stream)
KEYS[2]  global audit stream <p>:audit (Redis Cluster: an audit stream in KEYS[1]'s slot, the
         user's <p>:{<user>}:audit or <p>:{:}:audit)

ARGV[1]  raw user id the key belongs to, "" if none (audit entry and event only)
ARGV[2]  raw action id, "" if none
ARGV[3]  actor, required
ARGV[4]  reason, required
ARGV[5]  events channel, "" = do not publish

Deletes KEYS[1], appends "delete_key" to the global audit stream (MAXLEN ~ 100000) with the key
name in field detail, publishes "delete\n<byte length of user>\n<user><action>". All of it or
nothing. Deleting the global audit stream itself leaves it holding just this entry.
Reply: 1 if the key existed, 0 if it was already gone (the entry is written either way).
Errors: TG_INVALID (bad argument), TG_CORRUPT (the audit key is not a stream),
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

if #KEYS ~= 2 or #ARGV ~= 5 then return redis.error_reply('TG_INVALID delete takes 2 keys and 5 arguments') end
local key, global = KEYS[1], KEYS[2]
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local bad = required('actor', actor, 'reason', reason) or (key ~= global and expect_type(global, 'stream'))
if bad then return bad end

local existed = redis.call('EXISTS', key)   -- nothing runs in between: DEL deletes it
local writes = {
  { 'DEL', key },
  -- always into KEYS[2], even when it is the key deleted (it then holds just this entry)
  { 'XADD', global, 'MAXLEN', '~', int(GLOBAL_AUDIT_LEN), '*', 'event', 'delete_key', 'user', user,
    'action', action, 'actor', actor, 'reason', reason, 'until_ms', '0', 'detail', key },
}
publish(writes, channel, 'delete', user, action)
return apply(writes) or existed
