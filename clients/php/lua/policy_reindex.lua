--[[ policy_reindex.lua: rebuilds the policy index from policy hashes the client found by SCAN.

KEYS[1]     policy index set <p>:policies (Redis Cluster: <p>:{:}:policies)
KEYS[2..]   policy hashes <p>:policy:<action> (Redis Cluster: <p>:{:}:policy:<action>): the ones
            SCAN found and the ones the index names

Each KEYS[2..] that holds a hash is added to the index (its escaped action, taken from the key);
each one that does not is removed from it. The marker "*" is always added: an index holding only
the marker means "no policies", a missing index means "rebuild me".
Reply: the number of policies in the index afterwards (without the marker).
Errors: TG_INVALID (no index key), TG_CORRUPT (the index is not a set), TG_NOPERM.

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

if #KEYS < 1 then return redis.error_reply('TG_INVALID policy_reindex needs the index key') end
local index = KEYS[1]
local kind = redis.call('TYPE', index).ok
if kind ~= 'none' and kind ~= 'set' then
  return redis.error_reply('TG_CORRUPT key ' .. index .. ' is a ' .. kind .. ', expected the policy index set')
end
if not (redis.acl_check_cmd('SADD', index, '*') and redis.acl_check_cmd('SREM', index, '*')) then
  return redis.error_reply('TG_NOPERM this user may not write ' .. index .. '; nothing was written')
end
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
