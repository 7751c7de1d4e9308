    -- Refund: the counter goes down by cost, never below 0 (SET ... KEEPTTL: its TTL stays).
    function refund(w)
      local after = max(w.count - cost, 0)          -- (w.count is 0 for a missing counter)
      if after < w.count then later('SET', w.key, after, 'KEEPTTL') end
      w.changed, w.count = after < w.count, after
      w.reset_ms = after > 0 and max(w.ttl, 0) or 0
    end
