  -- The sliding window's retry, made after the fast paths (a closure made costs every call that
  -- makes it): for a refusal's reply and for the general path.
  if alg == 'sliding_window' then
    -- The first elapsed ms e in [0, W] at which floor(count * (W - e) / W) <= allowed:
    -- floor(count * (W - e) / W) <= allowed  <=>  W - e < (allowed + 1) * W / count
    local function first_fit(W, count, allowed)
      if count <= allowed then return 0 end
      local q, r = mul_div(allowed + 1, W, count)
      return max(W + 1 - (r > 0 and q + 1 or q), 0)
    end
    -- ms from `elapsed` into a window of W ms holding cur (and prev the window before) until a
    -- hit of `cost` fits `limit`: once prev weighs little enough in this window, else in the
    -- next, where cur is prev
    function sw_retry(W, cur, prev, elapsed, cost, limit)
      local room = limit - cost - cur
      local e = room >= 0 and first_fit(W, prev, room) or W
      if e >= W then e = W + first_fit(W, cur, limit - cost) end
      return max(e - elapsed, 1)
    end
  end
