--[[ policy_set.lua: compare-and-set of a policy hash, so two operators never overwrite each other.

KEYS[1]   policy hash <p>:policy:<action>
KEYS[2]   policy index set <p>:policies (escaped action names plus the marker "*")

ARGV[1]   expected revision: the one the edit started from; 0 = the policy must not exist yet
ARGV[2]   actor, required
ARGV[3]   events channel, "" = do not publish
ARGV[4..] field, value, field, value, ...  (at least one pair). Field names are the client's, except
          revision, updated_by and updated_ms: the script owns those and refuses them.

The current revision is the hash's "revision" field (0 when the key or the field does not exist).
If it differs from ARGV[1]: TG_CONFLICT. Otherwise the hash is replaced (fields not given are
removed) by the given fields plus revision = current + 1, updated_by = actor, updated_ms = server
time, <action> and the marker "*" are added to the index, and "policy\n0\n<action>" is published (<action> as it appears in the key).
Reply: the new revision.
Errors: TG_INVALID, TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, or the index is not a set).
]]

local function to_int(s)
  if s and #s <= 15 and s:match('^%d+$') then return tonumber(s) end
  return nil
end

local key = KEYS[1]
local action = key:match('([^:]*)$')
local owned = { revision = true, updated_by = true, updated_ms = true }

-- At most 64 fields: bounded work, and the DEL below is never followed by an HSET too large to run.
if #KEYS ~= 2 or #ARGV < 5 or #ARGV % 2 ~= 1 or #ARGV > 3 + 2 * 64 then
  return redis.error_reply('TG_INVALID policy_set takes 2 keys, 3 arguments and 1 to 64 field/value pairs')
end
local expected, actor, channel = to_int(ARGV[1]), ARGV[2], ARGV[3]
if not expected then return redis.error_reply('TG_INVALID expected revision must be an integer >= 0') end
if actor == '' then return redis.error_reply('TG_INVALID actor is required') end
for i = 4, #ARGV, 2 do
  if ARGV[i] == '' or owned[ARGV[i]] then
    return redis.error_reply('TG_INVALID field name "' .. ARGV[i] .. '" is empty or reserved')
  end
end

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

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('DEL', key)
redis.call('HSET', key, unpack(ARGV, 4))
redis.call('HSET', key, 'revision', string.format('%d', current + 1), 'updated_by', actor,
  'updated_ms', string.format('%d', now_ms))
redis.call('SADD', KEYS[2], action, '*')   -- listing policies is then one SMEMBERS, no SCAN
if channel ~= '' then redis.call('PUBLISH', channel, 'policy\n0\n' .. action) end
return current + 1
