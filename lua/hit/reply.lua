  -- A shadow hit is decided and counted as an enforced one, but always allowed and never bans:
  -- its reply says what enforcing would have answered, plus [8] the override that decided ("" for
  -- none) and [9] 1, or 2 when enforcing would have written the policy's automatic ban (auto_ban.lua).
  local shadow, would_ban = mode == 'shadow', false
  local function reply(w, allowed, tier, retry)
    local r = { allowed and 1 or 0, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry }
    if shadow then r[1] = 1 end
    -- [8] the override that decided, [9] shadow: only when either applies (the common reply stays
    -- 7 long); a peek's has both and [10], [11]: count and reset_ms of that window before the hit
    if shadow or applied ~= '' or mode == 'peek' then r[8], r[9] = applied, shadow and (would_ban and 2 or 1) or 0 end
    if mode == 'peek' then r[10], r[11] = w.count_now, w.reset_now end
    return r
  end

  local function smallest_remaining()
    local best = windows[1]
    for _, w in ipairs(windows) do
      if w.limit - w.count < best.limit - best.count then best = w end
    end
    return best
  end
