    repeat
      -- Sliding window counter: TIME, HMGET (+ PTTL when it holds counts), HSET, PEXPIRE. It reads
      -- only counts spelled as this script writes them (digits, below 2^50, no leading 0; a start
      -- or cur of 0, which it never writes, goes the general way), so within one window HSET writes
      -- cur alone: start and prev already hold what the general path would write. A refusal
      -- writes nothing; it asks the TTL of a hash without counts too (one without a TTL is
      -- repaired by the general path), and a ban the hash's PEXPIRETIME.
      local W = window + 0
      if not now_ms then                                -- (a timed ban read it already)
        local t = redis.call('TIME')
        now_us = t[1] * 1000000 + t[2]
        now_ms = floor(now_us / 1000)
      end
      local ws = floor(now_ms / W) * W
      local h = redis.pcall('HMGET', key, 'start', 'cur', 'prev')
      if h.err then break end
      local start_s, cur_s, prev_s = h[1], h[2], h[3]
      local start, cur, prev, held_ttl = ws, 0, 0, nil
      local held = start_s or cur_s or prev_s
      if held then
        local fields = start_s and cur_s and prev_s and #start_s < 16 and #cur_s < 16 and #prev_s < 16
          and start_s .. ',' .. cur_s .. ',' .. (prev_s == '0' and '1' or prev_s)
        if not fields or not fields:find('^[1-9]%d*,[1-9]%d*,[1-9]%d*$') then break end
        if banned then                                  -- (against the clock, as the ban's)
          local at = redis.call('PEXPIRETIME', key)
          held_ttl = at < 0 and at or max(at - now_ms, 0)
        else
          held_ttl = redis.call('PTTL', key)
        end
        if held_ttl == 0 then break end
        start, cur, prev = start_s + 0, cur_s + 0, prev_s == '0' and 0 or prev_s + 0
        if start < ws then                              -- (a start ahead of ws: a clock step back, kept)
          prev, prev_s = 0, '0'                         -- two or more windows passed
          if start == ws - W then prev, prev_s = cur, cur_s end   -- one: cur becomes prev
          start, start_s, cur = ws, nil, 0
        end
      end
      local elapsed = now_ms - ws
      local weighed = prev * (W - elapsed)            -- floor(prev * (W - elapsed) / W)
      weighed = weighed < 2 ^ 53 and floor(weighed / W) or mul_div(prev, W - elapsed, W)
      local before = weighed + cur
      if banned or before + cost > limit then
        if not (banned or quiet) then break end         -- (a denial that counts or bans)
        if not held then held_ttl = redis.call('PTTL', key) end
        if held_ttl == -1 or held_ttl == 0 then break end         -- (the general path gives it its TTL)
        -- as the general path's plan of a hit not counted: the hash as it is
        r_count, r_reset = before, cur > 0 and 2 * W - elapsed or prev > 0 and W - elapsed or 0
        if banned then
          refused, r_retry, r_ttl = 'banned', ban_left, held_ttl
        else
          -- (a cost over the limit never fits; else hit/sw_retry.lua reckons it from these)
          refused, r_retry = 'deny', cost > limit and -1 or nil
          sw_W, sw_cur, sw_prev, sw_elapsed = W, cur, prev, elapsed
        end
        break
      end
      if mode ~= 'hit' then break end
      local after = before + cost
      if warn > 0 and before <= warn and after > warn then break end   -- crossing the warn level: an audit entry
      cur = cur + cost
      local format = string.format
      local ttl = format('%d', 2 * W)
      if start_s then
        -- Within one window each write is checked by running it (refused, it writes nothing;
        -- cheaper than asking first): a refused PEXPIRE has HSET put cur's old digits back, so the
        -- hash is as it was (as the fixed window's INCRBY -cost does).
        if type(redis.pcall('HSET', key, 'cur', format('%d', cur))) ~= 'number' then break end
        if type(redis.pcall('PEXPIRE', key, ttl)) ~= 'number' then
          redis.call('HSET', key, 'cur', cur_s)
          break
        end
      else
        -- A new window writes three fields, on a hash that may not exist yet (undone only by a
        -- DEL the ACL user may not run): PEXPIRE is asked about first.
        if not redis.acl_check_cmd('PEXPIRE', key, ttl)
          or type(redis.pcall('HSET', key, 'start', format('%d', start), 'cur', format('%d', cur), 'prev', prev_s or '0')) ~= 'number' then
          break
        end
        redis.call('PEXPIRE', key, ttl)
      end
      return { 1, (warn > 0 and after > warn) and 'warn' or 'ok', after, limit, limit - after, 2 * W - elapsed, 0 }
    until true
