  -- One read per window; a wrong type fails it, and only then does TYPE name the key, in the
  -- order of the windows, before any value is judged (as a TYPE per window did).
  -- The TTLs are taken against the clock once it is read (every algorithm but a fixed window
  -- from the first hit; a ban in force has read it): a ban's end and each window's then come
  -- from one reading, so a window ending with the ban reports exactly the ban's retry (a PTTL is
  -- the server's clock of that very command). A ban this hit creates needs no earlier reading:
  -- a window that ends with it reports the ban's own ms left (end_windows_at's min), as its
  -- PTTL, read before the clock, is at least that.
  for _, w in ipairs(windows) do
    if now_ms then
      local at = redis.call('PEXPIRETIME', w.key)
      w.ttl = at < 0 and at or max(at - now_ms, 0)
    else
      w.ttl = redis.call('PTTL', w.key)
    end
    if w.ttl == 0 then
      assert_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
    elseif w.ttl ~= -2 then
      local first = redis.pcall(read[1], w.key, unpack(read, 2))
      if type(first) == 'table' and first.err then
        assert_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
        error(first, 0)
      end
      w.first = first
    end
  end
  for _, w in ipairs(windows) do load(w) end

  -- A peek also reports the window as it stands, before the hit it weighs (reply [10], [11]):
  -- a hit that does not fit may count less than its cost (a log or a bucket holds at most the
  -- limit), so a client cannot take the cost back out of the count after it.
  local function plan_all(counted)
    for _, w in ipairs(windows) do
      if mode == 'peek' then
        plan(w, false)
        w.count_now, w.reset_now = w.count, w.reset_ms
      end
      plan(w, counted)
      if not w.fits and cost > w.limit then w.retry_ms = -1 end   -- never: it can never fit
    end
  end

  -- The end of a ban is a fresh start: no window of this action outlives it, so none reports a
  -- reset later than the ban's end (left: ms from now until then). reported_only: the reply
  -- says so, the keys keep their expiry (a would-be ban: a shadow hit's, a peek's); a peek's
  -- window as it stands ends with a ban in force only.
  local function end_windows_at(until_ms, left, reported_only)
    for _, w in ipairs(windows) do
      if not reported_only then
        later('PEXPIREAT', w.key, until_ms, 'LT')
        if w.reset_now then w.reset_now = min(w.reset_now, left) end
      end
      w.reset_ms = min(w.reset_ms, left)
    end
  end
