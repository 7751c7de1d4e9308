    -- A hash {start, cur, prev}: counts of the aligned window starting at `start` and of the one before.
    -- The estimate weighs prev by the part of the previous window still inside the sliding window:
    -- floor(prev * (W - elapsed) / W) + cur. All time math is relative to the window start (ms
    -- since ws), so nothing rounds in epoch terms.
    expected, read = 'hash', { 'HMGET', 'start', 'cur', 'prev' }
    -- Sliding window: those counts seen from the aligned window that starts at ws.
    local function sw_roll(ws, W, start, cur, prev)
      if start >= ws then return start, cur, prev end     -- current window (or a clock step back: keep it)
      if start == ws - W then return ws, 0, cur end       -- one window passed
      return ws, 0, 0                                     -- two or more passed
    end

    -- the hash's start, cur, prev as numbers (counts capped at MAX_STORED), or nil when one is
    -- not a non-negative integer
    local function sw_fields(h)
      local start, cur, prev = signed_int(h[1]), signed_int(h[2]), signed_int(h[3])
      if start and cur and prev and start >= 0 and cur >= 0 and prev >= 0 then
        return start, min(cur, MAX_STORED), min(prev, MAX_STORED)
      end
    end

    function load(w)
      w.ws = floor(now_ms / w.window_ms) * w.window_ms
      w.start, w.cur, w.prev = w.ws, 0, 0
      if w.ttl > 0 or w.ttl == -1 then
        local h = w.first
        if h[1] or h[2] or h[3] then
          local start, cur, prev = sw_fields(h)
          if not start then                           -- name the first field that is not a count
            for i, field in ipairs({ 'start', 'cur', 'prev' }) do stored_int(w.key, field, h[i] or 'missing') end
          end
          w.start, w.cur, w.prev = sw_roll(w.ws, w.window_ms, start, cur, prev)
        end
      end
      w.elapsed = now_ms - w.ws
      w.count = mul_div(w.prev, w.window_ms - w.elapsed, w.window_ms) + w.cur
      w.fits = w.count + cost <= w.limit
    end

    function plan(w, counted)
      local W = w.window_ms
      local cur, prev = min(w.cur + (counted and cost or 0), MAX_STORED), w.prev
      if counted then later('HSET', w.key, 'start', w.start, 'cur', cur, 'prev', prev) end
      if counted or w.ttl == -1 then later('PEXPIRE', w.key, 2 * W) end
      w.count = mul_div(prev, W - w.elapsed, W) + cur
      w.reset_ms = cur > 0 and 2 * W - w.elapsed or prev > 0 and W - w.elapsed or 0
      if not w.fits then w.retry_ms = sw_retry(W, cur, prev, w.elapsed, cost, w.limit) end
    end
