  local function reply(w, allowed, tier, retry)
    local r = { allowed and 1 or 0, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry }
    if applied ~= '' then r[8], r[9] = applied, 0 end      -- the override that decided, not shadow
    return r
  end

  local function smallest_remaining()
    local best = windows[1]
    for _, w in ipairs(windows) do
      if w.limit - w.count < best.limit - best.count then best = w end
    end
    return best
  end
