    -- Refund: the TAT moves back by cost units (cost * window_us / limit µs, exact to 1/limit µs),
    -- never before now (an empty bucket). SET ... KEEPTTL: the TTL stays.
    function refund(w)
      local us, num = w.tat_us, w.tat_num
      if w.count > 0 then
        us, num = us - w.inc_q, num - w.inc_r
        if num < 0 then us, num = us - 1, num + w.limit end
        if us < now_us then us, num = now_us, 0 end
        later('SET', w.key, num > 0 and string.format('%d+%d/%d', us, num, w.limit) or us, 'KEEPTTL')
        w.changed, w.count = true, used(w, us, num)
      end
      w.reset_ms = ceil((us - now_us + (num > 0 and 1 or 0)) / 1000)
    end
