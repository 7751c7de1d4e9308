-- policy_set.lua, policy_delete.lua and policy_restore.lua: the policy hash KEYS[1], the global
-- audit stream KEYS[2], the index KEYS[3] and the history stream KEYS[4] ("", absent or KEYS[1]
-- again = none), edited by ARGV[2] from the revision ARGV[1].
local key, global, index = KEYS[1], KEYS[2], KEYS[3]
local history = KEYS[4] or ''
if history == key then history = '' end
local action = (key or ''):match('([^:]*)$')     -- escaped, as it appears in the key

-- Fields the scripts own in a policy hash: a client may not give them.
local OWNED = { revision = true, updated_by = true, updated_ms = true, updated_reason = true, contract = true }

--@include "includes/unescape.lua"

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
