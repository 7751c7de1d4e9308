-- A ban hash (lua/README.md, "Keys") queued into the write plan: it replaces any ban on that key,
-- TTL included, and expires at until_ms (0 = permanent, no TTL). action "" = every action.
local function ban_writes(writes, key, action, reason, actor, source, created_ms, until_ms)
  writes[#writes + 1] = { 'DEL', key }
  writes[#writes + 1] = { 'HSET', key, 'reason', reason, 'actor', actor, 'created_ms', created_ms,
    'until_ms', until_ms, 'scope', action == '' and 'user' or 'action', 'action', action, 'source', source }
  if until_ms > 0 then writes[#writes + 1] = { 'PEXPIREAT', key, until_ms } end
end
