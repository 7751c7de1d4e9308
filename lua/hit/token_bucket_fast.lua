    repeat
      -- Token bucket: TIME, GET (+ PTTL only when the TAT is ahead of now), one SET ... PX. A
      -- refusal writes nothing; it asks the TTL of a bucket that holds nothing too (one without
      -- is repaired by the general path); under a ban, PEXPIRETIME against the clock instead.
      local window_us = window * 1000
      if limit > window_us then break end
      if not now_us then                                -- (a timed ban read it already)
        local t = redis.call('TIME')
        now_us = t[1] * 1000000 + t[2]                  -- (digits: arithmetic reads them)
        now_ms = floor(now_us / 1000)
      end
      local us, num, before, ttl = now_us, 0, 0, nil    -- an empty bucket
      local stored = redis.pcall('GET', key)
      if stored then
        if stored.err then break end                    -- (another type)
        -- The TAT "<us>+<num>/<den>" or "<us>", as parse_tat reads it (a negative one, or one of
        -- 17 bytes or fewer that is not all digits: the general path). Which of the two it is
        -- goes by the length, one pattern for either.
        local us_s, n_s, d_s, n, d = stored, nil, nil, 0, 1
        if #stored > 17 then
          us_s, n_s, d_s = stored:match('^(%d+)%+(%d+)/(%d+)$')
          if not us_s or #us_s > 17 or #n_s > 17 or #d_s > 17 then break end
          n, d = n_s + 0, d_s == limit_s and limit or d_s + 0   -- (the usual den: the limit's own digits)
          if d < 1 or n >= d then break end
        elseif not stored:find('^%d+$') then
          break
        end
        local tat = us_s + 0
        -- (a TAT not ahead of now is an empty bucket whatever the TTL: the SET below gives it one)
        if tat > now_us or (tat == now_us and n > 0) then
          if banned then                                -- (against the clock, as the ban's)
            local at = redis.call('PEXPIRETIME', key)
            ttl = at < 0 and at or max(at - now_ms, 0)
          else
            ttl = redis.call('PTTL', key)
          end
          if ttl == 0 then break end                    -- it expires within this millisecond
          us, num = tat, (n == 0 or d == limit) and n or mul_div(n, limit, d)
          -- units in the bucket: ceil((us - now_us + num / limit) * limit / window_us)
          local a = us - now_us
          local q, r = a * limit, nil
          if q < 2 ^ 53 then q = floor(q / window_us); r = a * limit - q * window_us else q, r = mul_div(a, limit, window_us) end
          before = q + ceil((r + num) / window_us)
        end
      end
      -- the TAT moves by cost * window_us / limit µs, kept as whole µs and num / limit
      local inc_q, inc_r = cost * window_us, nil
      if inc_q < 2 ^ 53 then inc_q = floor(inc_q / limit); inc_r = cost * window_us - inc_q * limit else inc_q, inc_r = mul_div(cost, window_us, limit) end
      local next_num, next_us = num + inc_r, us + inc_q
      if next_num >= limit then next_us, next_num = next_us + 1, next_num - limit end   -- (num + inc_r < 2 * limit)
      local ahead = next_us - now_us
      if banned or ahead > window_us or (ahead == window_us and next_num > 0) then
        if not (banned or quiet) then break end         -- (a denial that counts or bans)
        if not ttl then
          ttl = -2
          if stored then
            local at = redis.call('PEXPIRETIME', key)
            ttl = at < 0 and at or max(at - now_ms, 0)
          end
        end
        if ttl == -1 or ttl == 0 then break end         -- (the general path gives it its TTL)
        -- as the general path's plan of a hit not counted: the bucket as it is
        r_count, r_reset = before, ceil((us - now_us + (num > 0 and 1 or 0)) / 1000)
        if banned then
          refused, r_retry, r_ttl = 'banned', ban_left, ttl
        else
          refused, r_retry = 'deny', cost > limit and -1
            or max(ceil((ahead + (next_num > 0 and 1 or 0) - window_us) / 1000), 1)
        end
        break
      end
      if mode ~= 'hit' then break end
      local q, r = ahead * limit, nil
      if q < 2 ^ 53 then q = floor(q / window_us); r = ahead * limit - q * window_us else q, r = mul_div(ahead, limit, window_us) end
      local after = q + ceil((r + next_num) / window_us)
      if warn > 0 and before <= warn and after > warn then break end   -- crossing the warn level: an audit entry
      local reset_ms = ceil((ahead + (next_num > 0 and 1 or 0)) / 1000)
      -- SET is the only write, so it is checked by running it: refused, it writes nothing
      local tat = next_num > 0 and string.format('%d+%d/%d', next_us, next_num, limit) or string.format('%d', next_us)
      if redis.pcall('SET', key, tat, 'PX', reset_ms + 1).err then break end
      return { 1, (warn > 0 and after > warn) and 'warn' or 'ok', after, limit, limit - after, reset_ms, 0 }
    until true
