    -- Refund: from the current aligned window's count (cur) only, never below 0; what the previous
    -- window counted fades as it always does. HSET of the three fields, the TTL stays.
    function refund(w)
      local taken = min(cost, w.cur)
      if taken > 0 then later('HSET', w.key, 'start', w.start, 'cur', w.cur - taken, 'prev', w.prev) end
      local W = w.window_ms
      w.changed, w.cur = taken > 0, w.cur - taken
      w.count = mul_div(w.prev, W - w.elapsed, W) + w.cur
      w.reset_ms = w.cur > 0 and 2 * W - w.elapsed or w.prev > 0 and W - w.elapsed or 0
    end
