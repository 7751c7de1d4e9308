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

  -- global: also mirror the entry into KEYS[4], the stream the console follows (unless it is off)
  local function audit(event, reason, until_ms, global)
    expect_type(KEYS[3], 'stream', 'an audit stream')
    later('XADD', KEYS[3], 'MAXLEN', '~', 1000, '*', 'event', event, 'user', user, 'action', action,
      'actor', 'tollgate', 'reason', reason, 'until_ms', until_ms)
    later('PEXPIRE', KEYS[3], AUDIT_TTL_MS)   -- history lives 90 days after its last entry
    if global and KEYS[4] ~= '' and KEYS[4] ~= KEYS[3] then
      expect_type(KEYS[4], 'stream', 'an audit stream')
      later('XADD', KEYS[4], 'MAXLEN', '~', GLOBAL_AUDIT_LEN, '*', 'event', event, 'user', user,
        'action', action, 'actor', 'tollgate', 'reason', reason, 'until_ms', until_ms)
    end
  end

  if allowed then
    local first = windows[1]
    local tier = (warn > 0 and first.count > warn) and 'warn' or 'ok'
    if warn > 0 and first_before <= warn and first.count > warn then
      audit('warn', string.format('count %d > warn %d', first.count, warn), 0)
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
    later('DEL', KEYS[2])
    later('HSET', KEYS[2], 'reason', reason, 'actor', 'tollgate', 'created_ms', now_ms, 'until_ms', until_ms,
      'scope', 'action', 'action', action, 'source', 'auto')
    later('PEXPIREAT', KEYS[2], until_ms)
    audit('auto_ban', reason, until_ms, true)
    if channel ~= '' then later('PUBLISH', channel, 'ban\n' .. #user .. '\n' .. user .. action) end
    end_windows_at(until_ms, until_ms - now_ms)
    -- the windows end with the ban, so the ban's end is exactly when a hit passes again (a hit
    -- whose cost exceeds a limit never passes: -1 stays)
    if retry ~= -1 then retry = until_ms - now_ms end
  end
  return reply(binding, false, 'deny', retry)
end

