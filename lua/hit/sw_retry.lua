  -- The sliding window's retry, made after the fast paths (a closure made costs every call that
  -- makes it): for a refusal's reply and for the general path.
  if alg == 'sliding_window' then
    -- ms from `elapsed` into a window of W ms holding cur (and prev the window before) until a
    -- hit of `cost` fits `limit`: once prev weighs little enough in this window, else in the
    -- next, where cur is prev. In each, the first elapsed ms e in [0, W] at which
    -- floor(count * (W - e) / W) <= allowed  <=>  W - e < (allowed + 1) * W / count
    -- (one closure: a closure made, and each upvalue it takes, costs every call that makes it)
    function sw_retry(W, cur, prev, elapsed, cost, limit)
      local start, count, allowed = 0, prev, limit - cost - cur
      if allowed < 0 then start, count, allowed = W, cur, limit - cost end
      while true do
        local e = 0
        if count > allowed then
          local q, r = mul_div(allowed + 1, W, count)
          e = W + 1 - (r > 0 and q + 1 or q)
          if e < 0 then e = 0 end
        end
        if start == 0 and e >= W then
          start, count, allowed = W, cur, limit - cost    -- not in this window: in the next
        else
          e = start + e - elapsed
          return e > 1 and e or 1
        end
      end
    end
  end
