-- Argument checks: each returns a TG_INVALID reply for the caller to return, or nil.

--@include "includes/int.lua"

-- A non-negative integer of at most `digits` digits, or nil.
local function to_int(s, digits)
  if s and #s <= digits and s:match('^%d+$') then return tonumber(s) end
  return nil
end

-- A TG_INVALID reply for the caller to return.
local function invalid(msg) return redis.error_reply('TG_INVALID ' .. msg) end

-- required('actor', actor, 'reason', reason): the first of these that is empty.
local function required(...)
  local named = { ... }
  for i = 1, #named, 2 do
    if named[i + 1] == '' then return redis.error_reply('TG_INVALID ' .. named[i] .. ' is required') end
  end
end
