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

--@include "includes/write_prologue.lua"

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
