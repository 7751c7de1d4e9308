--[[ override_reindex.lua: rebuilds the override index from what the client found by SCAN.

KEYS[1]    override index <p>:overrides (zset; Redis Cluster: <p>:{:}:overrides)
ARGV[1]    the server's now in epoch ms (members ending by then are left out)
ARGV[2..]  pairs: escaped user id (as in its <p>:{<user>}:overrides key), the key's end in epoch
           ms (PEXPIRETIME) or "+inf" for a key without TTL (a permanent override)

Replaces the index with these members, in one step. Reply: the number of users indexed.
Errors: TG_INVALID (bad arguments), TG_CORRUPT (the index is not a zset), TG_NOPERM (nothing written).

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

if #KEYS ~= 1 or #ARGV % 2 ~= 1 or not to_int(ARGV[1], 17) then
  return redis.error_reply('TG_INVALID override_reindex takes the index key, now_ms, then user/end pairs')
end
local index, now = KEYS[1], tonumber(ARGV[1])
local bad = expect_type(index, 'zset')
if bad then return bad end
local writes, count = { { 'DEL', index } }, 0
for i = 2, #ARGV, 2 do
  local user, ends = ARGV[i], ARGV[i + 1]
  if user == '' or user:find('[:{}]') or (ends ~= '+inf' and not to_int(ends, 17)) then
    return redis.error_reply('TG_INVALID bad member "' .. user:sub(1, 200) .. '" or end "' .. tostring(ends):sub(1, 40) .. '"')
  end
  if ends == '+inf' or tonumber(ends) > now then
    writes[#writes + 1] = { 'ZADD', index, ends, user }
    count = count + 1
  end
end
return apply(writes) or count
