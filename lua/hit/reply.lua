  -- A shadow hit is decided and counted as an enforced one, but always allowed and never bans:
  -- its reply says what enforcing would have answered, plus [8] "" (no override) and [9] 1, or 2
  -- when enforcing would have written the policy's automatic ban (auto_ban.lua).
  local shadow, would_ban = mode == 'shadow', false
  local function reply(w, allowed, tier, retry)
    if shadow then
      return { 1, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry, '', would_ban and 2 or 1 }
    end
    return { allowed and 1 or 0, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry }
  end

  local function smallest_remaining()
    local best = windows[1]
    for _, w in ipairs(windows) do
      if w.limit - w.count < best.limit - best.count then best = w end
    end
    return best
  end
