  -- One read per window; a wrong type fails it, and only then does TYPE name the key, in the
  -- order of the windows, before any value is judged (as a TYPE per window did).
  for _, w in ipairs(windows) do
    w.ttl = redis.call('PTTL', w.key)
    if w.ttl == 0 then
      expect_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
    elseif w.ttl ~= -2 then
      local first = redis.pcall(read[1], w.key, unpack(read, 2))
      if type(first) == 'table' and first.err then
        expect_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
        error(first, 0)
      end
      w.first = first
    end
  end
  for _, w in ipairs(windows) do load(w) end

  local function plan_all(counted)
    for _, w in ipairs(windows) do
      plan(w, counted)
      if not w.fits and cost > w.limit then w.retry_ms = -1 end   -- never: it can never fit
    end
  end

  -- The end of a ban is a fresh start: no window of this action outlives it, so none reports a
  -- reset later than the ban's end (left: ms from now until then). reported_only: the reply
  -- says so, the keys keep their expiry (a shadow hit's would-be ban).
  local function end_windows_at(until_ms, left, reported_only)
    for _, w in ipairs(windows) do
      if not reported_only then later('PEXPIREAT', w.key, until_ms, 'LT') end
      w.reset_ms = min(w.reset_ms, left)
    end
  end
