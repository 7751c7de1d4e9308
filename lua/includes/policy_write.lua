-- policy_set.lua and policy_restore.lua: a new revision of the policy hash, and what it changes.

-- The audit detail's "; <field>: <old> -> <new>" parts (values over 200 bytes cut with "...")
-- for the client fields that differ between the stored hash (its HGETALL `old_flat`, empty when
-- none) and the new `fields` (flat field, value, ...).
local function changed_fields(old_flat, fields)
  local old = as_table(old_flat)
  local function shown(value)
    if value == nil then return '(none)' end
    return #value > 200 and value:sub(1, 200) .. '...' or value
  end
  local changes, given = {}, {}
  for i = 1, #fields, 2 do
    given[fields[i]] = true
    if old[fields[i]] ~= fields[i + 1] then
      changes[#changes + 1] = fields[i] .. ': ' .. shown(old[fields[i]]) .. ' -> ' .. shown(fields[i + 1])
    end
  end
  for i = 1, #old_flat, 2 do
    if not given[old_flat[i]] and not OWNED[old_flat[i]] then
      changes[#changes + 1] = old_flat[i] .. ': ' .. shown(old_flat[i + 1]) .. ' -> (none)'
    end
  end
  return #changes > 0 and '; ' .. table.concat(changes, '; ') or ''
end

-- Queues replacing the hash by `fields` (flat, client fields only) at `revision`, and indexing it.
local function write_revision(writes, fields, revision, actor, reason, now_ms)
  writes[#writes + 1] = { 'DEL', key }
  writes[#writes + 1] = { 'HSET', key, unpack(fields) }
  writes[#writes + 1] = { 'HSET', key, 'revision', int(revision), 'updated_by', actor,
    'updated_ms', int(now_ms), 'updated_reason', reason, 'contract', '3' }
  if index ~= '' and index ~= key then -- listing policies is then one SMEMBERS, no SCAN
    writes[#writes + 1] = { 'SADD', index, action, '*' }
  end
end

local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
