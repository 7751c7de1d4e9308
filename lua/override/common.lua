-- What override_set.lua and override_delete.lua share: the key checks, the parsing of a stored
-- override and the hash's expiry with the index (lua/README.md, "Overrides").
local max = math.max
--@include "hit/escape.lua"

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
