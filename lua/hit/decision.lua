  if banned then
    -- Nothing counts during a ban (not even with count_denied); the reply's retry is the ban's end.
    plan_all(false)
    if banned > 0 then end_windows_at(ban_end, banned) end
    return reply(smallest_remaining(), false, 'banned', banned)
  end

  ---------------------------------------------------------------- decision
  local allowed = true
  for _, w in ipairs(windows) do allowed = allowed and w.fits end
  local counted = allowed or count_denied
  local first_before = windows[1].count
  plan_all(counted)

--@include "includes/audit.lua"
--@include "includes/events.lua"
--@include "includes/ban_record.lua"

  -- An entry by "tollgate" in the user's stream and, when global, in KEYS[4] too (the stream the
  -- console follows, unless it is off), each stream checked like every key of ours.
  local function audit_hit(event, reason, until_ms, global)
    expect_type(KEYS[3], 'stream', 'an audit stream')
    global = global and KEYS[4] or ''
    if global ~= '' and global ~= KEYS[3] then expect_type(global, 'stream', 'an audit stream') end
    audit(writes, KEYS[3], global, { 'event', event, 'user', user, 'action', action, 'actor', 'tollgate',
      'reason', reason, 'until_ms', until_ms })
  end

  if allowed then
    local first = windows[1]
    local tier = (warn > 0 and first.count > warn) and 'warn' or 'ok'
    if warn > 0 and first_before <= warn and first.count > warn then
      audit_hit('warn', string.format('count %d > warn %d', first.count, warn), 0)
    end
    return reply(smallest_remaining(), true, tier, 0)
  end

  local binding
  for _, w in ipairs(windows) do
    if not w.fits and (binding == nil or longer(w.retry_ms, binding.retry_ms) ~= binding.retry_ms) then
      binding = w
    end
  end
  local retry = binding.retry_ms

  if ban_ms > 0 or ban_until == 'midnight' then
    local until_ms = clock() + ban_ms
    if ban_until == 'midnight' then until_ms = max(until_ms, local_boundary(zone, now_ms, DAY)) end
    local reason = string.format('limit exceeded: %d/%d per %d ms',
      binding.count + (counted and 0 or cost), binding.limit, binding.window_ms)
    expect_type(KEYS[2], 'hash', 'a ban hash')
    ban_writes(writes, KEYS[2], action, reason, 'tollgate', 'auto', now_ms, until_ms)
    audit_hit('auto_ban', reason, until_ms, true)
    publish(writes, channel, 'ban', user, action)
    end_windows_at(until_ms, until_ms - now_ms)
    -- the windows end with the ban, so the ban's end is exactly when a hit passes again (a hit
    -- whose cost exceeds a limit never passes: -1 stays)
    if retry ~= -1 then retry = until_ms - now_ms end
  end
  return reply(binding, false, 'deny', retry)
