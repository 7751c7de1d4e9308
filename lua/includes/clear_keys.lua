-- unban.lua and reset.lua: delete the keys KEYS[3..] the client found (a key listed twice is
-- deleted and counted once), append an audit entry with field count = keys deleted (even 0) to
-- the user's stream and the global one, publish the event. All of it or nothing.
-- Reply: the number of keys deleted.
local function clear_keys(operation, reason_required)
  if #KEYS < 2 or #ARGV ~= 5 then
    return redis.error_reply('TG_INVALID ' .. operation .. ' takes 2+ keys and 5 arguments')
  end
  local user_stream, global = KEYS[1], KEYS[2]
  local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
  local bad = required('actor', actor) or (reason_required and required('reason', reason))
    or expect_type(user_stream, 'stream') or (global ~= '' and expect_type(global, 'stream'))
  if bad then return bad end

  local writes, deleted, seen = {}, 0, {}
  for i = 3, #KEYS do
    if not seen[KEYS[i]] then
      seen[KEYS[i]] = true
      deleted = deleted + redis.call('EXISTS', KEYS[i])   -- nothing runs in between: DEL deletes these
      writes[#writes + 1] = { 'DEL', KEYS[i] }
    end
  end
  audit(writes, user_stream, global, { 'event', operation, 'user', user, 'action', action, 'actor', actor,
    'reason', reason, 'until_ms', '0', 'count', int(deleted) })
  publish(writes, channel, operation, user, action)
  return apply(writes) or deleted
end
