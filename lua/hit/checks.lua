
-- Every check raises a "TG_..." string; the guard at the bottom turns it into an error reply.
local function fail(code, msg) error(code .. ' ' .. msg, 0) end

--@include "includes/int.lua"

local function arg_int(i, name, lo, hi)
  local v = signed_int(ARGV[i])
  if v == nil or v < lo or v > hi then
    fail('TG_INVALID', string.format('%s must be an integer in [%s, %s], got "%s"',
      name, int(lo), int(hi), tostring(ARGV[i]):sub(1, 40)))
  end
  return v
end

-- A stored integer field: absent stays nil, anything but a non-negative integer is corruption.
local function stored_int(key, what, s)
  if not s then return nil end
  local v = signed_int(s)
  if v == nil or v < 0 then
    fail('TG_CORRUPT', string.format('key %s holds %s "%s", expected a non-negative integer', key, what, s:sub(1, 40)))
  end
  return v
end

-- A key of ours holding another type is named here, before Redis' anonymous WRONGTYPE could be.
local function assert_type(key, wanted, what)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then fail('TG_CORRUPT', string.format('key %s is a %s, expected %s', key, kind, what)) end
end
