  function to_int(s)
    return type(s) == 'string' and #s <= 17 and s:find('^%-?%d+$') and s + 0 or nil
  end

  -- The general path's arithmetic (the fast paths above do theirs in line).
  if alg == 'token_bucket' then
    -- GCRA: the TAT "<us>" or "<us>+<num>/<den>" (num < den) as us, num, den; nil when it is neither.
    function parse_tat(s)
      local a, b, c = s:match('^(%d+)%+(%d+)/(%d+)$')
      if not a then return to_int(s), 0, 1 end
      local us, n, d = #a <= 17 and a + 0, #b <= 17 and b + 0, #c <= 17 and c + 0
      if us and n and d and d >= 1 and n < d then return us, n, d end
    end

    -- GCRA: the TAT us + num/limit µs moved by q + r/limit µs.
    function tb_after(us, num, q, r, limit)
      local total = num + r
      return us + q + floor(total / limit), total % limit
    end

    -- GCRA: units in a bucket whose TAT is us + num/limit µs, ceil((TAT - now) * limit / window_us).
    function tb_used(us, num, limit, window_us)
      local q, r = mul_div(us - now_us, limit, window_us)
      return q + ceil((r + num) / window_us)
    end

  elseif alg == 'sliding_window' then
    -- Sliding window: those counts seen from the aligned window that starts at ws.
    function sw_roll(ws, W, start, cur, prev)
      if start >= ws then return start, cur, prev end     -- current window (or a clock step back: keep it)
      if start == ws - W then return ws, 0, cur end       -- one window passed
      return ws, 0, 0                                     -- two or more passed
    end

  elseif alg == 'sliding_log' then
    -- Sliding log: a member is the running total, zero-padded so rank order is total order.
    function sl_member(total) return string.format('%016d', total) end
  end
end

