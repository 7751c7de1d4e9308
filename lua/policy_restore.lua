--[[ policy_restore.lua: puts an earlier revision of a policy back, as a new revision (rollback),
or brings a deleted policy back (restore). History is never rewritten.

KEYS[1]  policy hash <p>:policy:<action> (Redis Cluster: <p>:{:}:policy:<action>)
KEYS[2]  global audit stream <p>:audit (Redis Cluster: <p>:{:}:audit, the policies' slot);
         "" or KEYS[1] again = no audit entry
KEYS[3]  policy index set <p>:policies (Redis Cluster: <p>:{:}:policies); "" or KEYS[1] again =
         no index
KEYS[4]  history stream <p>:policy:<action>:history (Redis Cluster:
         <p>:{:}:policy:<action>:history), required

ARGV[1]  expected revision: the stored one the operator saw; 0 = the policy is deleted (restore)
ARGV[2]  actor, required
ARGV[3]  events channel, "" = do not publish
ARGV[4]  reason, required
ARGV[5]  the revision to put back; 0 = the newest one in the history (for a restore: the
         revision that was deleted)

If the hash's "revision" (0 when missing) differs from ARGV[1]: TG_CONFLICT. The history entry
holding revision ARGV[5] gives the fields: exactly as policy_set.lua would save them (with
updated_reason = ARGV[4]), the stored hash, if any, becomes the newest history entry and the hash
is replaced by that entry's client fields at one revision above the highest the action had. An
audit entry "rollback" (a policy was stored) or "restore" (none was) with the actor, reason
ARGV[4] and detail "revision=N; from=M", then the changed fields as policy_set.lua writes them,
goes to the global stream; "policy\n0\n<action>" is published. All of it or nothing.
Reply: the new revision.
Errors (naming the action as it appears in the key):
        TG_INVALID (bad arguments, or ARGV[5] is the stored revision: nothing to put back),
        TG_NOTFOUND "policy <action> has no history" | "policy <action> has no revision N" |
                    "revision N of policy <action> was pruned from its history (it keeps
                    revisions A to B)",
        TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, the audit key or the history is not a stream,
                    the index is not a set), TG_NOPERM (nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
--@include "includes/policy_revision.lua"
--@include "includes/policy_history.lua"
--@include "includes/policy_write.lua"

---------------------------------------------------------------- arguments
if #KEYS ~= 4 or #ARGV ~= 5 then
  return redis.error_reply('TG_INVALID policy_restore takes 4 keys and 5 arguments')
end
local actor, channel, reason = ARGV[2], ARGV[3], ARGV[4]
local expected, bad = edited_revision()
if bad then return bad end
local wanted = to_int(ARGV[5], 15)
bad = required('reason', reason)
  or (history == '' and redis.error_reply('TG_INVALID policy_restore needs the history key'))
  or (not wanted and redis.error_reply('TG_INVALID the revision to put back must be an integer >= 0'))
  or expect_type(key, 'hash')
if bad then return bad end
local current
current, bad = current_revision(expected)
if bad then return bad end

---------------------------------------------------------------- the revision to put back
local entries = archived()
-- Messages name the action as it appears in the key: one line, whatever its bytes.
if #entries == 0 then return redis.error_reply('TG_NOTFOUND policy ' .. action .. ' has no history') end
if wanted == 0 then wanted = entries[1].revision end
if wanted == current then
  return redis.error_reply('TG_INVALID policy ' .. action .. ' is at revision ' .. int(current) .. ' already')
end
local chosen
for _, entry in ipairs(entries) do
  if entry.revision == wanted then chosen = entry break end
end
if not chosen then
  local oldest = entries[#entries].revision
  if wanted < oldest then
    return redis.error_reply(string.format('TG_NOTFOUND revision %d of policy %s was pruned from its history ' ..
      '(it keeps revisions %d to %d)', wanted, action, oldest, entries[1].revision))
  end
  return redis.error_reply('TG_NOTFOUND policy ' .. action .. ' has no revision ' .. int(wanted))
end

---------------------------------------------------------------- the writes
local fields = {}
for i = 1, #chosen.flat, 2 do
  if not OWNED[chosen.flat[i]] then
    fields[#fields + 1] = chosen.flat[i]
    fields[#fields + 1] = chosen.flat[i + 1]
  end
end
if #fields == 0 then
  return redis.error_reply('TG_CORRUPT history entry of revision ' .. int(wanted) .. ' in ' .. history .. ' holds no fields')
end
local stored = current > 0 and redis.call('HGETALL', key) or {}
local revision = highest_revision(current) + 1
local writes = {}
archive(writes, stored)
write_revision(writes, fields, revision, actor, reason, server_ms())
audit_policy(writes, { 'event', current > 0 and 'rollback' or 'restore', 'user', '', 'action', unescape(action),
  'actor', actor, 'reason', reason, 'until_ms', '0', 'detail', 'revision=' .. int(revision) ..
  '; from=' .. int(wanted) .. (current > 0 and changed_fields(stored, fields) or '') })
publish(writes, channel, 'policy', '', action)
return apply(writes) or revision
