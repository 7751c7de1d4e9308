--[[ policy_delete.lua: compare-and-delete of a policy hash.

KEYS[1]  policy hash <p>:policy:<action> (Redis Cluster: <p>:{:}:policy:<action>)
KEYS[2]  global audit stream <p>:audit (Redis Cluster: <p>:{:}:audit, the policies' slot);
         "" or KEYS[1] again = no audit entry
KEYS[3]  policy index set <p>:policies (Redis Cluster: <p>:{:}:policies; the action leaves it);
         "" or KEYS[1] again = no index

ARGV[1]  expected revision (the one the operator saw)
ARGV[2]  actor, required
ARGV[3]  events channel, "" = do not publish

If the hash's "revision" (0 when missing) differs from ARGV[1]: TG_CONFLICT. Otherwise the hash is
deleted, an audit entry "policy_delete" (detail "deleted=0|1") is appended to the global stream and,
if a policy existed, "policy\n0\n<action>" is published (<action> as it appears in the key).
All of it or nothing.
Reply: 1 if a policy was deleted, 0 if there was none (expected revision 0).
Errors: TG_INVALID, TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, the audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 2 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 2 and does nothing else.
]]

--@include "includes/contract_query.lua"

local function int(x) return string.format('%d', x) end

local function to_int(s)
  if s and #s <= 15 and s:match('^%d+$') then return tonumber(s) end
  return nil
end

-- Ids in keys are %XX-escaped (README "Key schema"); audit entries hold the raw id.
local function unescape(s) return (s:gsub('%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end)) end

--@include "includes/expect_type.lua"
--@include "includes/audit_global.lua"
--@include "includes/apply.lua"
---------------------------------------------------------------- arguments
local key, global, index = KEYS[1], KEYS[2], KEYS[3]
local action = (key or ''):match('([^:]*)$')

if #KEYS ~= 3 or #ARGV ~= 3 then return redis.error_reply('TG_INVALID policy_delete takes 3 keys and 3 arguments') end
local expected, actor, channel = to_int(ARGV[1]), ARGV[2], ARGV[3]
if not expected then return redis.error_reply('TG_INVALID expected revision must be an integer >= 0') end
if actor == '' then return redis.error_reply('TG_INVALID actor is required') end

local bad = (global ~= '' and global ~= key and expect_type(global, 'stream')) or (index ~= '' and index ~= key and expect_type(index, 'set'))
if bad then return bad end
local stored = redis.call('HGET', key, 'revision')
if stored and not to_int(stored) then
  return redis.error_reply('TG_CORRUPT key ' .. key .. ' holds revision "' .. stored .. '", expected an integer')
end
local current = stored and to_int(stored) or 0
if current ~= expected then
  return redis.error_reply(string.format('TG_CONFLICT policy %s is at revision %d, you edited revision %d',
    action, current, expected))
end

---------------------------------------------------------------- the writes
local exists = redis.call('EXISTS', key)
local writes = { { 'DEL', key } }
if index ~= '' and index ~= key then writes[#writes + 1] = { 'SREM', index, action } end
audit(writes, global, { 'event', 'policy_delete', 'user', '', 'action', unescape(action), 'actor', actor,
  'reason', '', 'until_ms', '0', 'detail', 'deleted=' .. int(exists) })
if exists == 1 and channel ~= '' then writes[#writes + 1] = { 'PUBLISH', channel, 'policy\n0\n' .. action } end
return apply(writes) or exists
