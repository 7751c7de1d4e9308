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
