--[[ policy_delete.lua: compare-and-delete of a policy hash.

KEYS[1]  policy hash <p>:policy:<action> (Redis Cluster: <p>:{:}:policy:<action>)
KEYS[2]  global audit stream <p>:audit (Redis Cluster: <p>:{:}:audit, the policies' slot);
         "" or KEYS[1] again = no audit entry
KEYS[3]  policy index set <p>:policies (Redis Cluster: <p>:{:}:policies; the action leaves it);
         "" or KEYS[1] again = no index

ARGV[1]  expected revision (the one the operator saw)
ARGV[2]  actor, required
ARGV[3]  events channel, "" = do not publish
ARGV[4]  optional: why, for the audit entry's reason (absent = "")

If the hash's "revision" (0 when missing) differs from ARGV[1]: TG_CONFLICT. Otherwise the hash is
deleted, an audit entry "policy_delete" (reason ARGV[4], detail "deleted=0|1") is appended to the global stream and,
if a policy existed, "policy\n0\n<action>" is published (<action> as it appears in the key).
All of it or nothing.
Reply: 1 if a policy was deleted, 0 if there was none (expected revision 0).
Errors: TG_INVALID, TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, the audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
--@include "includes/policy_revision.lua"

---------------------------------------------------------------- arguments
if #KEYS ~= 3 or (#ARGV ~= 3 and #ARGV ~= 4) then
  return redis.error_reply('TG_INVALID policy_delete takes 3 keys and 3 or 4 arguments')
end
local actor, channel, reason = ARGV[2], ARGV[3], ARGV[4] or ''
local expected, bad = edited_revision()
if bad then return bad end
bad = select(2, current_revision(expected))      -- the stored revision must be the one edited
if bad then return bad end

---------------------------------------------------------------- the writes
local exists = redis.call('EXISTS', key)
local writes = { { 'DEL', key } }
if index ~= '' and index ~= key then writes[#writes + 1] = { 'SREM', index, action } end
audit_policy(writes, { 'event', 'policy_delete', 'user', '', 'action', unescape(action), 'actor', actor,
  'reason', reason, 'until_ms', '0', 'detail', 'deleted=' .. int(exists) })
if exists == 1 then publish(writes, channel, 'policy', '', action) end
return apply(writes) or exists
