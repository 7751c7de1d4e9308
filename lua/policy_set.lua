--[[ policy_set.lua: compare-and-set of a policy hash, so two operators never overwrite each other.

KEYS[1]   policy hash <p>:policy:<action> (Redis Cluster: <p>:{:}:policy:<action>)
KEYS[2]   global audit stream <p>:audit (Redis Cluster: <p>:{:}:audit, the policies' slot);
          "" or KEYS[1] again = no audit entry
KEYS[3]   policy index set <p>:policies (Redis Cluster: <p>:{:}:policies; escaped action names
          plus the marker "*"); "" or KEYS[1] again = no index

ARGV[1]   expected revision: the one the edit started from; 0 = the policy must not exist yet
ARGV[2]   actor, required
ARGV[3]   events channel, "" = do not publish
ARGV[4]   summary for the audit entry's reason (e.g. "10 per 10s, ban 1h"), may be empty
ARGV[5..] field, value, field, value, ...  (at least one pair). Field names are the client's, except
          revision, updated_by, updated_ms and contract: the script owns those and refuses them.

The current revision is the hash's "revision" field (0 when the key or the field does not exist).
If it differs from ARGV[1]: TG_CONFLICT. Otherwise the hash is replaced (fields not given are
removed) by the given fields plus revision = current + 1, updated_by = actor, updated_ms = server
time, contract = 3 (the script contract the hash follows); <action> and the marker "*" are added to
the index; an audit entry "policy" (action unescaped from the key, detail "revision=N", then
"; <field>: <old> -> <new>" for each client field the save changes when the policy existed: a
field it adds is "(none) -> <new>", one it drops "<old> -> (none)", values over 200 bytes cut
with "...") is appended to
the global stream and "policy\n0\n<action>" is published (<action> as it appears in the key).
All of it or nothing.
Reply: the new revision.
Errors: TG_INVALID, TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, the audit key is not a stream, the index is
                    not a set),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
--@include "includes/policy_revision.lua"

---------------------------------------------------------------- arguments
local owned = { revision = true, updated_by = true, updated_ms = true, contract = true }

-- At most 64 fields: bounded work, and the DEL below is never followed by an HSET too large to run.
if #KEYS ~= 3 or #ARGV < 6 or #ARGV % 2 ~= 0 or #ARGV > 4 + 2 * 64 then
  return redis.error_reply('TG_INVALID policy_set takes 3 keys, 4 arguments and 1 to 64 field/value pairs')
end
local actor, channel, summary = ARGV[2], ARGV[3], ARGV[4]
local expected, bad = edited_revision()
if bad then return bad end
for i = 5, #ARGV, 2 do
  if ARGV[i] == '' or owned[ARGV[i]] then
    return redis.error_reply('TG_INVALID field name "' .. ARGV[i] .. '" is empty or reserved')
  end
end

bad = expect_type(key, 'hash')
if bad then return bad end
local current
current, bad = current_revision(expected)
if bad then return bad end

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

---------------------------------------------------------------- what changes: the audit keeps old and new
local function shown(value)
  if value == nil then return '(none)' end
  return #value > 200 and value:sub(1, 200) .. '...' or value
end
local changes = {}
if current > 0 then
  local flat = redis.call('HGETALL', key)
  local old, given = {}, {}
  for i = 1, #flat, 2 do old[flat[i]] = flat[i + 1] end
  for i = 5, #ARGV, 2 do
    given[ARGV[i]] = true
    if old[ARGV[i]] ~= ARGV[i + 1] then
      changes[#changes + 1] = ARGV[i] .. ': ' .. shown(old[ARGV[i]]) .. ' -> ' .. shown(ARGV[i + 1])
    end
  end
  for i = 1, #flat, 2 do
    if not given[flat[i]] and not owned[flat[i]] then
      changes[#changes + 1] = flat[i] .. ': ' .. shown(flat[i + 1]) .. ' -> (none)'
    end
  end
end

---------------------------------------------------------------- the writes
local revision = int(current + 1)
local writes = {
  { 'DEL', key },
  { 'HSET', key, unpack(ARGV, 5) },
  { 'HSET', key, 'revision', revision, 'updated_by', actor, 'updated_ms', int(now_ms), 'contract', '3' },
}
if index ~= '' and index ~= key then -- listing policies is then one SMEMBERS, no SCAN
  writes[#writes + 1] = { 'SADD', index, action, '*' }
end
audit_policy(writes, { 'event', 'policy', 'user', '', 'action', unescape(action), 'actor', actor,
  'reason', summary, 'until_ms', '0',
  'detail', 'revision=' .. revision .. (#changes > 0 and '; ' .. table.concat(changes, '; ') or '') })
publish(writes, channel, 'policy', '', action)
return apply(writes) or current + 1
