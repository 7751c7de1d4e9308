--[[ policy_delete.lua: compare-and-delete of a policy hash.

KEYS[1]  policy hash <p>:policy:<action>
KEYS[2]  policy index set <p>:policies

ARGV[1]  expected revision (the one the operator saw)
ARGV[2]  actor, required
ARGV[3]  events channel, "" = do not publish

If the hash's "revision" (0 when missing) differs from ARGV[1]: TG_CONFLICT. Otherwise the hash is
deleted, <action> leaves the index and, if it existed, "policy\n0\n<action>" is published (<action> as it appears in the key).
Reply: 1 if a policy was deleted, 0 if there was none (expected revision 0).
Errors: TG_INVALID, TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, or the index is not a set).
]]

local function to_int(s)
  if s and #s <= 15 and s:match('^%d+$') then return tonumber(s) end
  return nil
end

local key = KEYS[1]
local action = key:match('([^:]*)$')

if #KEYS ~= 2 or #ARGV ~= 3 then return redis.error_reply('TG_INVALID policy_delete takes 2 keys and 3 arguments') end
local expected, actor, channel = to_int(ARGV[1]), ARGV[2], ARGV[3]
if not expected then return redis.error_reply('TG_INVALID expected revision must be an integer >= 0') end
if actor == '' then return redis.error_reply('TG_INVALID actor is required') end

local index_type = redis.call('TYPE', KEYS[2]).ok   -- checked before any write, like the rest
if index_type ~= 'none' and index_type ~= 'set' then
  return redis.error_reply('TG_CORRUPT key ' .. KEYS[2] .. ' is a ' .. index_type .. ', expected the policy index set')
end
local stored = redis.call('HGET', key, 'revision')
if stored and not to_int(stored) then
  return redis.error_reply('TG_CORRUPT key ' .. key .. ' holds revision "' .. stored .. '", expected an integer')
end
local current = stored and to_int(stored) or 0
if current ~= expected then
  return redis.error_reply(string.format('TG_CONFLICT policy %s is at revision %d, you edited revision %d',
    action, current, expected))
end

local deleted = redis.call('DEL', key)
redis.call('SREM', KEYS[2], action)
if deleted == 1 and channel ~= '' then redis.call('PUBLISH', channel, 'policy\n0\n' .. action) end
return deleted
