    -- GCRA: the string holds the theoretical arrival time (TAT) in µs, "<us>" or "<us>+<num>/<den>"
    -- with the exact fraction of a µs. Each unit of cost moves it by window_us / limit µs, kept as
    -- whole µs plus a remainder in 1/limit µs, so no rounding adds up (600k per second stays 600k).
    -- A hit passes if the TAT stays within one window of now.
    -- µs from now to the TAT, rounded up: us - now_us + (num > 0 and 1 or 0).
    expected, read = 'string', { 'GET' }
    -- GCRA: the TAT "<us>" or "<us>+<num>/<den>" (num < den) as us, num, den; nil when it is neither.
    local function parse_tat(s)
      local a, b, c = s:match('^(%d+)%+(%d+)/(%d+)$')
      if not a then return signed_int(s), 0, 1 end
      local us, n, d = #a <= 17 and a + 0, #b <= 17 and b + 0, #c <= 17 and c + 0
      if us and n and d and d >= 1 and n < d then return us, n, d end
    end

    -- GCRA: the TAT us + num/limit µs moved by q + r/limit µs.
    local function tb_after(us, num, q, r, limit)
      local total = num + r
      return us + q + floor(total / limit), total % limit
    end

    -- GCRA: units in a bucket whose TAT is us + num/limit µs, ceil((TAT - now) * limit / window_us).
    local function tb_used(us, num, limit, window_us)
      local q, r = mul_div(us - now_us, limit, window_us)
      return q + ceil((r + num) / window_us)
    end

    local function after(w, us, num) return tb_after(us, num, w.inc_q, w.inc_r, w.limit) end
    local function used(w, us, num) return tb_used(us, num, w.limit, w.window_us) end

    function load(w)
      local s = (w.ttl > 0 or w.ttl == -1) and w.first or nil
      local us, num = now_us, 0
      if s then
        local stored, n, d = parse_tat(s)
        if not stored then
          fail('TG_CORRUPT', string.format('key %s holds TAT "%s", expected "<us>" or "<us>+<num>/<den>"', w.key, s:sub(1, 40)))
        end
        if stored > now_us or (stored == now_us and n > 0) then
          us, num = stored, (d == w.limit) and n or mul_div(n, w.limit, d)
        end
      end
      w.tat_us, w.tat_num = us, num
      w.inc_q, w.inc_r = mul_div(cost, w.window_us, w.limit)
      w.count = used(w, us, num)
      local next_us, next_num = after(w, us, num)
      local ahead = next_us - now_us
      w.fits = ahead < w.window_us or (ahead == w.window_us and next_num == 0)
    end

    function plan(w, counted)
      local us, num = w.tat_us, w.tat_num
      if counted then
        us, num = after(w, us, num)
        if not w.fits and us - now_us + (num > 0 and 1 or 0) > w.window_us then
          us, num = now_us + w.window_us, 0             -- denied hits fill the bucket, no more
        end
      end
      w.reset_ms = ceil((us - now_us + (num > 0 and 1 or 0)) / 1000)
      if counted then
        later('SET', w.key, num > 0 and string.format('%d+%d/%d', us, num, w.limit) or us, 'PX', w.reset_ms + 1)
      end
      if w.ttl == -1 and not counted then later('PEXPIRE', w.key, w.reset_ms + 1) end
      w.count = used(w, us, num)
      if not w.fits then
        local next_us, next_num = after(w, us, num)
        w.retry_ms = max(ceil((next_us - now_us + (next_num > 0 and 1 or 0) - w.window_us) / 1000), 1)
      end
    end
