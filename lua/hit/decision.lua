  if banned then
    -- Nothing counts during a ban (not even with count_denied); the reply's retry is the ban's end.
    plan_all(false)
    if banned > 0 then end_windows_at(ban_end, banned) end
    return reply(smallest_remaining(), false, 'banned', banned)
  end

  ---------------------------------------------------------------- decision
  local allowed = true
  for _, w in ipairs(windows) do allowed = allowed and w.fits end
  local counted = allowed or count_denied or exempt
  local first_before = windows[1].count
  plan_all(counted)

--@include "includes/events.lua"
--@include "hit/auto_ban.lua"
  if allowed or exempt then                        -- an exempt user is never denied
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
    local until_ms = auto_ban(string.format('limit exceeded: %d/%d per %d ms',
      binding.count + (counted and 0 or cost), binding.limit, binding.window_ms), 'tollgate')
    -- the windows end with the ban, so the ban's end is exactly when a hit passes again (a hit
    -- whose cost exceeds a limit never passes: -1 stays)
    if retry ~= -1 then retry = until_ms - now_ms end
  end
  return reply(binding, false, 'deny', retry)
