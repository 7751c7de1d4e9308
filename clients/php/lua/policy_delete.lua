--[[ policy_delete.lua: compare-and-delete of a policy hash.

KEYS[1]  policy hash <p>:policy:<action> (Redis Cluster: <p>:{:}:policy:<action>)
KEYS[2]  global audit stream <p>:audit (Redis Cluster: <p>:{:}:audit, the policies' slot);
         "" or KEYS[1] again = no audit entry
KEYS[3]  policy index set <p>:policies (Redis Cluster: <p>:{:}:policies; the action leaves it);
         "" or KEYS[1] again = no index
KEYS[4]  optional: history stream <p>:policy:<action>:history (Redis Cluster:
         <p>:{:}:policy:<action>:history); absent, "" or KEYS[1] again = no history

ARGV[1]  expected revision (the one the operator saw)
ARGV[2]  actor, required
ARGV[3]  events channel, "" = do not publish
ARGV[4]  optional: why, for the audit entry's reason (absent = "")

If the hash's "revision" (0 when missing) differs from ARGV[1]: TG_CONFLICT. Otherwise the hash
becomes the newest entry of the history (trimmed to the last 100; it stays, without a TTL, so
policy_restore.lua can bring the policy back), the hash is deleted, an audit entry
"policy_delete" (reason ARGV[4], detail "deleted=0|1") is appended to the global stream and, if
a policy existed, "policy\n0\n<action>" is published (<action> as it appears in the key).
All of it or nothing.
Reply: 1 if a policy was deleted, 0 if there was none (expected revision 0).
Errors: TG_INVALID, TG_CONFLICT "policy <action> is at revision N, you edited revision M",
        TG_CORRUPT (revision is not an integer, the audit key or the history is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

-- What every write script starts with: the contract query, then the shared constants, argument
-- and key checks, the write plan, the audit writer and the events.
if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

-- Bounds and lifetimes the scripts share (lua/README.md).
local MAX_BAN_MS = 3153600000000         -- a ban lasts at most 100 years
local MAX_WINDOW_MS = 31536000000        -- a window is at most a year long
local AUDIT_TTL_MS = 7776000000          -- a user's history lives 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000          -- MAXLEN ~ of the global audit stream (a user's: 1000)
-- Argument checks: each returns a TG_INVALID reply for the caller to return, or nil.

local function int(x) return string.format('%d', x) end

-- A non-negative integer of at most `digits` digits, or nil.
local function to_int(s, digits)
  if s and #s <= digits and s:match('^%d+$') then return tonumber(s) end
  return nil
end

-- required('actor', actor, 'reason', reason): the first of these that is empty.
local function required(...)
  local named = { ... }
  for i = 1, #named, 2 do
    if named[i + 1] == '' then return redis.error_reply('TG_INVALID ' .. named[i] .. ' is required') end
  end
end
-- A key of ours holding another type is refused by name (TG_CORRUPT), before any write.
local function expect_type(key, wanted)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then
    return redis.error_reply('TG_CORRUPT key ' .. key .. ' is a ' .. kind .. ', expected a ' .. wanted)
  end
end
-- The write plan: a script queues every write as { command, key, ... } while it reads, then
-- applies them all only when this ACL user may run each one, or none (TG_NOPERM, nothing
-- written). Never a change without its audit entry.
local function apply(writes)
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
        '; nothing was written')
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end
-- The audit writer (lua/README.md, "Global audit stream"): an entry { field, value, ... } queued
-- into the write plan. A global stream that is "" or the call's own key (`besides`) is off.
local function audit_global(writes, global, entry, besides)
  if global ~= '' and global ~= besides then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', int(GLOBAL_AUDIT_LEN), '*', unpack(entry) }
  end
end

-- The user's stream (MAXLEN ~ 1000, expiring 90 days after its last entry) and the global one.
local function audit(writes, user_stream, global, entry)
  writes[#writes + 1] = { 'XADD', user_stream, 'MAXLEN', '~', '1000', '*', unpack(entry) }
  writes[#writes + 1] = { 'PEXPIRE', user_stream, int(AUDIT_TTL_MS) }
  audit_global(writes, global, entry, user_stream)
end
-- The event (lua/README.md, "Events") queued into the write plan when a channel is given:
-- "<event>\n<byte length of user>\n<user><action>", the length keeping ids with newlines apart.
local function publish(writes, channel, event, user, action)
  if channel ~= '' then
    writes[#writes + 1] = { 'PUBLISH', channel, event .. '\n' .. #user .. '\n' .. user .. action }
  end
end
-- policy_set.lua, policy_delete.lua and policy_restore.lua: the policy hash KEYS[1], the global
-- audit stream KEYS[2], the index KEYS[3] and the history stream KEYS[4] ("", absent or KEYS[1]
-- again = none), edited by ARGV[2] from the revision ARGV[1].
local key, global, index = KEYS[1], KEYS[2], KEYS[3]
local history = KEYS[4] or ''
if history == key then history = '' end
local action = (key or ''):match('([^:]*)$')     -- escaped, as it appears in the key

-- Fields the scripts own in a policy hash: a client may not give them.
local OWNED = { revision = true, updated_by = true, updated_ms = true, updated_reason = true, contract = true }

-- Ids in keys are %XX-escaped (README "Key schema"); audit entries hold the raw id.
local function unescape(s) return (s:gsub('%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end)) end

-- The revision the operator edited (ARGV[1]) with the actor (ARGV[2]), or nil and TG_INVALID.
local function edited_revision()
  local expected = to_int(ARGV[1], 15)
  if not expected then return nil, redis.error_reply('TG_INVALID expected revision must be an integer >= 0') end
  return expected, required('actor', ARGV[2])
end

-- The stored revision (0 when none), once the audit stream, the index and the history are of
-- their types; nil and TG_CORRUPT or TG_CONFLICT when it is not the one edited.
local function current_revision(expected)
  local bad = (global ~= '' and global ~= key and expect_type(global, 'stream'))
    or (index ~= '' and index ~= key and expect_type(index, 'set'))
    or (history ~= '' and expect_type(history, 'stream'))
  if bad then return nil, bad end
  local stored = redis.call('HGET', key, 'revision')
  local current = stored and to_int(stored, 15)
  if stored and not current then
    return nil, redis.error_reply('TG_CORRUPT key ' .. key .. ' holds revision "' .. stored .. '", expected an integer')
  end
  current = current or 0
  if current ~= expected then
    return nil, redis.error_reply(string.format('TG_CONFLICT policy %s is at revision %d, you edited revision %d',
      action, current, expected))
  end
  return current
end

-- A policy belongs to no user: its audit entry goes to the global stream only (unless off).
local function audit_policy(writes, entry) audit_global(writes, global, entry, key) end
-- The history of a policy (lua/README.md, "Policy history"): a stream holding, one entry per
-- revision, the whole hash a save, delete or restore replaced, the newest HISTORY_LEN kept.
local HISTORY_LEN = 100

-- A stream entry's or a hash's flat field list as a table.
local function as_table(flat)
  local t = {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end

-- The history's entries, newest first, each { flat = its field list, revision = its number }
-- (bounded: the stream is trimmed to HISTORY_LEN; one written longer by hand is read as its
-- newest 1000).
local function archived(count)
  if history == '' then return {} end
  local entries = {}
  for _, entry in ipairs(redis.call('XREVRANGE', history, '+', '-', 'COUNT', count or 1000)) do
    entries[#entries + 1] = { flat = entry[2], revision = to_int(as_table(entry[2]).revision, 15) or 0 }
  end
  return entries
end

-- The highest revision the action ever had: the stored one or the newest in its history.
local function highest_revision(current)
  local newest = archived(1)[1]
  return math.max(current, newest and newest.revision or 0)
end

-- Queues keeping the hash being replaced (its HGETALL, `flat`) as the newest history entry.
-- History has no TTL, like the policy it belongs to: a deleted policy's stays for restore.
local function archive(writes, flat)
  if history ~= '' and #flat > 0 then
    writes[#writes + 1] = { 'XADD', history, 'MAXLEN', int(HISTORY_LEN), '*', unpack(flat) }
  end
end

---------------------------------------------------------------- arguments
if (#KEYS ~= 3 and #KEYS ~= 4) or (#ARGV ~= 3 and #ARGV ~= 4) then
  return redis.error_reply('TG_INVALID policy_delete takes 3 or 4 keys and 3 or 4 arguments')
end
local actor, channel, reason = ARGV[2], ARGV[3], ARGV[4] or ''
local expected, bad = edited_revision()
if bad then return bad end
bad = select(2, current_revision(expected))      -- the stored revision must be the one edited
if bad then return bad end

---------------------------------------------------------------- the writes
local exists = redis.call('EXISTS', key)
local writes = {}
archive(writes, redis.call('HGETALL', key))
writes[#writes + 1] = { 'DEL', key }
if index ~= '' and index ~= key then writes[#writes + 1] = { 'SREM', index, action } end
audit_policy(writes, { 'event', 'policy_delete', 'user', '', 'action', unescape(action), 'actor', actor,
  'reason', reason, 'until_ms', '0', 'detail', 'deleted=' .. int(exists) })
if exists == 1 then publish(writes, channel, 'policy', '', action) end
return apply(writes) or exists
