--[[ override_delete.lua: end one override of a user now, leaving a trail even when there was none.

KEYS[1..4]  as override_set.lua: overrides hash, user audit stream, global audit stream ("" or
            the user's stream again = none), override index ("" or the hash again = none)

ARGV[1]  raw user id, 1..1024 bytes
ARGV[2]  raw action id, or "*" (the every-action override; the others stay)
ARGV[3]  actor, required
ARGV[4]  reason, required (at most 4096 bytes)
ARGV[5]  events channel, "" = do not publish

Deletes the field, drops the fields past their end, sets the key's expiry and the index as
override_set.lua does (the key and the user's index entry go when nothing is left); appends an
audit entry "override_delete" (detail "deleted=0|1") to the user's stream and to the global one;
publishes "override\n<byte length of user>\n<user><action>". All of it or nothing.
Reply: { deleted 1|0, key_end (-1 = permanent, 0 = nothing left, else epoch ms) }
Errors: TG_INVALID, TG_CORRUPT, TG_NOPERM (nothing is written).

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
local SCRIPT = 'override_delete'
-- What override_set.lua and override_delete.lua share: the key checks, the parsing of a stored
-- override and the hash's expiry with the index (lua/README.md, "Overrides").
local max = math.max
-- The escaping of lua/README.md "Keys": ASCII letters, digits and - _ . @ + = ! ~ , ; # & $ ( ) ' / < > | ^ ` "
-- stay, so does well-formed UTF-8 (no overlong forms, surrogates or > U+10FFFF); any other byte is %XX.
local NOT_PLAIN = '[^%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]'   -- a byte escaped, or part of UTF-8
local function escape(id)
  if not id:find(NOT_PLAIN) then return id end
  local out, i = {}, 1
  while i <= #id do
    local c, len = id:byte(i), 0
    if c < 0x80 then
      len = string.char(c):find(NOT_PLAIN) and 0 or 1
    else
      len = (c >= 0xC2 and c <= 0xDF) and 2 or (c >= 0xE0 and c <= 0xEF) and 3 or (c >= 0xF0 and c <= 0xF4) and 4 or 0
      local lo = (c == 0xE0 and 0xA0) or (c == 0xF0 and 0x90) or 0x80
      local hi = (c == 0xED and 0x9F) or (c == 0xF4 and 0x8F) or 0xBF
      for k = 1, len - 1 do
        local b = id:byte(i + k)
        if not b or b < (k == 1 and lo or 0x80) or b > (k == 1 and hi or 0xBF) then len = 0 end
      end
    end
    out[#out + 1] = len == 0 and string.format('%%%02X', c) or id:sub(i, i + len - 1)
    i = i + max(len, 1)
  end
  return table.concat(out)
end

local MAX_EPOCH_MS = 253402300799999     -- 9999-12-31

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- KEYS[1..4] are what lua/README.md builds from the raw user id: the overrides hash, the user's
-- audit stream, the global audit stream ("" or KEYS[2] = none), the index ("" or KEYS[1] = none).
-- Returns the escaped user and the index key ("" = none), or an error reply.
local function override_keys(user)
  if #KEYS ~= 4 then return nil, nil, redis.error_reply('TG_INVALID ' .. SCRIPT .. ' takes 4 keys') end
  if #user < 1 or #user > 1024 then return nil, nil, redis.error_reply('TG_INVALID user id must be 1..1024 bytes') end
  local escaped = escape(user)
  local prefix = KEYS[1]:match('^([^{]*:){') or ''
  local base = prefix .. '{' .. escaped .. '}:'
  local wanted = { base .. 'overrides', base .. 'audit', prefix .. 'audit', prefix .. 'overrides' }
  for i = 1, 4 do
    local none = i >= 3 and (KEYS[i] == '' or KEYS[i] == KEYS[i == 3 and 2 or 1])
    if (KEYS[i] ~= wanted[i] and not none) or #prefix < 2 then
      return nil, nil, redis.error_reply(string.format('TG_INVALID KEYS[%d] is "%s", expected "%s" (ids escaped as in lua/README.md)',
        i, KEYS[i]:sub(1, 200), wanted[i]:sub(1, 200)))
    end
  end
  local index = (KEYS[4] == KEYS[1]) and '' or KEYS[4]
  return escaped, index
end

-- The stored value: "<kind> <until_ms> <set_ms> <windows|-> <bytes of actor> <actor><reason>".
local function override_until(value)
  local until_ms = value:match('^%l+ (%d+) %d+ %S+ %d+ ')
  return until_ms and tonumber(until_ms)
end

-- Queues the hash's expiry after `field` got `until_ms` (nil: `field` was deleted): fields past
-- their end are dropped; the key expires with its latest field, or never while one is permanent;
-- the index holds the user scored by that end (+inf: permanent), or not at all once none is left.
-- Returns the key's end (-1 = permanent, 0 = nothing left).
local function override_expiry(writes, key, index, escaped_user, field, until_ms, now)
  local all = redis.call('HGETALL', key)
  local latest, permanent, left = until_ms or 0, until_ms == 0, until_ms and 1 or 0
  for i = 1, #all, 2 do
    if all[i] ~= field then
      local ends = override_until(all[i + 1])
      if ends and ends ~= 0 and ends <= now then
        writes[#writes + 1] = { 'HDEL', key, all[i] }
      else
        left = left + 1
        permanent = permanent or ends == 0 or ends == nil   -- (a value we cannot read is kept)
        latest = max(latest, ends or 0)
      end
    end
  end
  if left == 0 then
    if index ~= '' then writes[#writes + 1] = { 'ZREM', index, escaped_user } end
    writes[#writes + 1] = { 'DEL', key }
    return 0
  end
  writes[#writes + 1] = permanent and { 'PERSIST', key } or { 'PEXPIREAT', key, int(latest) }
  if index ~= '' then
    writes[#writes + 1] = { 'ZADD', index, permanent and '+inf' or int(latest), escaped_user }
    writes[#writes + 1] = { 'ZREMRANGEBYSCORE', index, '-inf', int(now) }   -- users whose overrides ended
  end
  return permanent and -1 or latest
end

if #ARGV ~= 5 then return redis.error_reply('TG_INVALID override_delete takes 4 keys and 5 arguments') end
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local escaped_user, index, bad = override_keys(user)
if bad then return bad end
bad = required('actor', actor, 'reason', reason)
if bad then return bad end
if #action < 1 or #action > 1024 then return redis.error_reply('TG_INVALID action id must be 1..1024 bytes') end
if #actor > 1024 or #reason > 4096 then return redis.error_reply('TG_INVALID actor or reason too long') end

local key, user_stream, global = KEYS[1], KEYS[2], KEYS[3]
bad = expect_type(key, 'hash') or expect_type(user_stream, 'stream')
  or (global ~= '' and expect_type(global, 'stream')) or (index ~= '' and expect_type(index, 'zset'))
if bad then return bad end

local field = action == '*' and '*' or escape(action)
local deleted = redis.call('HEXISTS', key, field)
local writes = {}
if deleted == 1 then writes[1] = { 'HDEL', key, field } end
local key_end = override_expiry(writes, key, index, escaped_user, field, nil, now_ms())
audit(writes, user_stream, global, { 'event', 'override_delete', 'user', user, 'action', action, 'actor', actor,
  'reason', reason, 'detail', 'deleted=' .. deleted })
publish(writes, channel, 'override', user, action)
return apply(writes) or { deleted, key_end }
