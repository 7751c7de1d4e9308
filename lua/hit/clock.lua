  -- The general path's clock, read once and only when the decision needs it (a fixed window from the
  -- first hit does not, unless a ban is involved).
  function clock()
    if not now_us then
      local t = redis.call('TIME')
      now_us = t[1] * 1000000 + t[2]                  -- (digits: arithmetic reads them)
      now_ms = floor(now_us / 1000)
    end
    return now_ms
  end

  function signed_int(s)
    return type(s) == 'string' and #s <= 17 and s:find('^%-?%d+$') and s + 0 or nil
  end
