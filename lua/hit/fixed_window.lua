    expected, read = 'string', { 'GET' }
    function load(w)
      w.count = 0
      if w.ttl > 0 or w.ttl == -1 then w.count = stored_int(w.key, 'counter', w.first) or 0 end
      w.fits = w.count + cost <= w.limit
    end

    function plan(w, counted)
      local fresh = w.ttl == -2 or w.ttl == 0
      -- ms until the window ends: from the first hit, or at the next local calendar boundary
      local boundary = calendar and local_boundary(zone, clock(), w.window_ms)
      local length = boundary and boundary - now_ms or w.window_ms
      -- A calendar counter expires at the boundary itself: a TTL counted from this script's clock
      -- would end a millisecond late whenever the server's clock ticks before the write runs.
      local px, at, pexpire = 'PX', length, 'PEXPIRE'
      if boundary then px, at, pexpire = 'PXAT', boundary, 'PEXPIREAT' end
      w.reset_ms = fresh and 0 or max(w.ttl, 0)
      if counted then
        w.count = min(w.count + cost, MAX_STORED)
        if fresh then later('SET', w.key, w.count, px, at) else later('SET', w.key, w.count, 'KEEPTTL') end
      end
      if w.ttl == -1 then later(pexpire, w.key, at) end          -- a counter that lost its TTL
      if w.ttl == -1 or (counted and fresh) then w.reset_ms = length end
      w.retry_ms = max(w.reset_ms, 1)
    end
