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
-- A ban hash (lua/README.md, "Keys") queued into the write plan: it replaces any ban on that key,
-- TTL included, and expires at until_ms (0 = permanent, no TTL). action "" = every action.
local function ban_writes(writes, key, action, reason, actor, source, created_ms, until_ms)
  writes[#writes + 1] = { 'DEL', key }
  writes[#writes + 1] = { 'HSET', key, 'reason', reason, 'actor', actor, 'created_ms', created_ms,
    'until_ms', until_ms, 'scope', action == '' and 'user' or 'action', 'action', action, 'source', source }
  if until_ms > 0 then writes[#writes + 1] = { 'PEXPIREAT', key, until_ms } end
end

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
