--[[ policy_reindex.lua: rebuilds the policy index from policy hashes the client found by SCAN.

KEYS[1]     policy index set <p>:policies
KEYS[2..]   policy hashes <p>:policy:<action>: the ones SCAN found and the ones the index names

Each KEYS[2..] that holds a hash is added to the index (its escaped action, taken from the key);
each one that does not is removed from it. The marker "*" is always added: an index holding only
the marker means "no policies", a missing index means "rebuild me".
Reply: the number of policies in the index afterwards (without the marker).
Errors: TG_INVALID (no index key).
]]

if #KEYS < 1 then return redis.error_reply('TG_INVALID policy_reindex needs the index key') end
local index = KEYS[1]
for i = 2, #KEYS do
  local action = KEYS[i]:match('([^:]*)$')
  if redis.call('TYPE', KEYS[i]).ok == 'hash' then
    redis.call('SADD', index, action)
  else
    redis.call('SREM', index, action)
  end
end
redis.call('SADD', index, '*')
return redis.call('SCARD', index) - 1
