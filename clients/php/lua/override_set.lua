--[[ override_set.lua: give one user other limits for an action, or none (an exemption), for a while.

KEYS[1]  the user's overrides hash <p>:{<user>}:overrides
KEYS[2]  user audit stream <p>:{<user>}:audit
KEYS[3]  global audit stream <p>:audit; "" or KEYS[2] again = no global mirror (Redis Cluster)
KEYS[4]  override index <p>:overrides (zset); "" or KEYS[1] again = none (Redis Cluster: the
         client then updates <p>:{:}:overrides itself with the reply's key_end)

ARGV[1]  raw user id, 1..1024 bytes
ARGV[2]  raw action id (1..1024 bytes), or "*" = every action of the user
ARGV[3]  actor, required
ARGV[4]  reason, required (at most 4096 bytes)
ARGV[5]  kind: "limit" | "unlimited"
ARGV[6]  windows: limit: "<window_ms>:<limit>,..." (1..8, window_ms 1..31536000000 all different,
         limit 1..1e9); unlimited: ""
ARGV[7]  duration_ms (1..3153600000000), 0 = none
ARGV[8]  until_ms, absolute epoch ms in the future, 0 = none; both 0 = permanent, both set = TG_INVALID
ARGV[9]  events channel, "" = do not publish

Writes the field (the action escaped as in keys, or "*") with
"<kind> <until_ms> <set_ms> <windows|-> <bytes of actor> <actor><reason>", replacing the previous
one; drops the fields past their end; the key expires at its latest end (no TTL while a field is
permanent); the index holds the escaped user scored by that end (+inf when permanent); appends
an audit entry "override" (detail "limit <windows>" | "unlimited") to the user's stream and to
the global one; publishes "override\n<byte length of user>\n<user><action>". All of it or nothing.
Reply: { until_ms (0 = permanent), set_ms, key_end (-1 = permanent, else epoch ms) }
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key of the wrong type),
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
local SCRIPT = 'override_set'
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

---------------------------------------------------------------- arguments
if #ARGV ~= 9 then return redis.error_reply('TG_INVALID override_set takes 4 keys and 9 arguments') end
local user, action, actor, reason, kind, windows, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[9]
local escaped_user, index, bad = override_keys(user)
if bad then return bad end
bad = required('actor', actor, 'reason', reason)
if bad then return bad end
if #action < 1 or #action > 1024 then return redis.error_reply('TG_INVALID action id must be 1..1024 bytes') end
if #actor > 1024 or #reason > 4096 then return redis.error_reply('TG_INVALID actor or reason too long') end
if kind ~= 'limit' and kind ~= 'unlimited' then return redis.error_reply('TG_INVALID kind must be limit or unlimited') end
if kind == 'unlimited' and windows ~= '' then return redis.error_reply('TG_INVALID an unlimited override has no windows') end
if kind == 'limit' then
  local seen, n = {}, 0
  for pair in (windows .. ','):gmatch('([^,]*),') do
    local ms, limit = to_int(pair:match('^(%d+):'), 11), to_int(pair:match(':(%d+)$'), 10)
    n = n + 1
    if not ms or not limit or ms < 1 or ms > MAX_WINDOW_MS or limit < 1 or limit > 1000000000 or seen[ms] or n > 8 then
      return redis.error_reply('TG_INVALID windows must be 1..8 "<window_ms>:<limit>" pairs (window_ms 1..'
        .. int(MAX_WINDOW_MS) .. ', all different; limit 1..1000000000), got "' .. windows:sub(1, 200) .. '"')
    end
    seen[ms] = true
  end
end
local duration_ms, until_ms = to_int(ARGV[7], 17), to_int(ARGV[8], 17)
if not duration_ms or duration_ms > MAX_BAN_MS then
  return redis.error_reply('TG_INVALID duration_ms must be an integer in [0, ' .. int(MAX_BAN_MS) .. ']')
end
if not until_ms or until_ms > MAX_EPOCH_MS then return redis.error_reply('TG_INVALID until_ms must be an epoch time in ms, or 0') end
if duration_ms > 0 and until_ms > 0 then return redis.error_reply('TG_INVALID give duration_ms or until_ms, not both') end
local now = now_ms()
if until_ms > 0 and until_ms <= now then return redis.error_reply('TG_INVALID until_ms ' .. ARGV[8] .. ' is not in the future') end
if duration_ms > 0 then until_ms = now + duration_ms end

local key, user_stream, global = KEYS[1], KEYS[2], KEYS[3]
bad = expect_type(key, 'hash') or expect_type(user_stream, 'stream')
  or (global ~= '' and expect_type(global, 'stream')) or (index ~= '' and expect_type(index, 'zset'))
if bad then return bad end

---------------------------------------------------------------- the writes
local field = action == '*' and '*' or escape(action)
local writes = { { 'HSET', key, field, string.format('%s %s %s %s %d %s%s', kind, int(until_ms), int(now),
  kind == 'limit' and windows or '-', #actor, actor, reason) } }
local key_end = override_expiry(writes, key, index, escaped_user, field, until_ms, now)
audit(writes, user_stream, global, { 'event', 'override', 'user', user, 'action', action, 'actor', actor,
  'reason', reason, 'until_ms', int(until_ms), 'detail', kind == 'limit' and 'limit ' .. windows or 'unlimited' })
publish(writes, channel, 'override', user, action)
return apply(writes) or { until_ms, now, key_end }
