
    -- A zset with one member per allowed hit (and per counted denial that finds no member in the
    -- window to join), scored by its time in µs. The member is the total counted so far (cost
    -- included), zero-padded so rank order is total order even within one µs:
    -- the count in the window is newest total - total of the newest member at or before the cut.
    -- That member (the base) is kept when older ones are trimmed. A hit costs O(log n) whatever
    -- its cost, and totals never collide.
    expected, read = 'zset', { 'ZRANGE', '-1', '-1', 'WITHSCORES' }
    -- Sliding log: a member is the running total, zero-padded so rank order is total order.
    local function sl_member(total) return string.format('%016d', total) end

    local function sl_total(key, member)
      local v = member:find('^%d+$') and tonumber(member)
      if not v then fail('TG_CORRUPT', string.format('key %s holds member "%s", expected a running total', key, member:sub(1, 40))) end
      return v
    end

    function load(w)
      w.cut = now_us - w.window_us                  -- members scored <= cut are out of the window
      w.count, w.newest_total, w.base_total, w.replace = 0, 0, 0, w.ttl == 0
      if w.ttl > 0 or w.ttl == -1 then
        local newest = w.first
        if newest[1] and newest[1]:find('^%d+%-%d+$') then
          w.replace = true                          -- "<us>-<seq>" members of the old format: start over
        elseif newest[1] then
          w.newest_total, w.newest_us = sl_total(w.key, newest[1]), tonumber(newest[2])
          local base = redis.call('ZREVRANGEBYSCORE', w.key, w.cut, '-inf', 'WITHSCORES', 'LIMIT', '0', '1')
          if base[1] then w.base_total, w.base_us = sl_total(w.key, base[1]), tonumber(base[2]) end
          w.count = w.newest_total - w.base_total
        end
      end
      w.fits = w.count + cost <= w.limit
    end

    function plan(w, counted)
      -- the count stays capped at the limit: a denied hit that counts fills the window, no more
      local added = not counted and 0 or w.fits and cost or min(cost, max(w.limit - w.count, 0))
      -- never log before the newest member, so a clock step back cannot reorder members
      local ts = max(now_us, w.newest_us or 0)
      local merged = added > 0 and not w.fits and w.newest_us ~= nil and w.newest_us > w.cut
      local trim = w.base_us and string.format('(%d', w.base_us)
      if added > 0 then
        if w.replace then later('DEL', w.key) end
        if trim then later('ZREMRANGEBYSCORE', w.key, '-inf', trim) end
        -- a denied hit joins the newest member in the window, which moves to now (a member of
        -- its own when there is none): members in the window never outnumber its units
        if merged then later('ZREM', w.key, sl_member(w.newest_total)) end
        later('ZADD', w.key, ts, sl_member(w.newest_total + added))
        w.count = w.count + added
      end
      local newest = added > 0 and ts or w.newest_us
      w.reset_ms = (newest and newest > w.cut) and max(ceil((newest + w.window_us - now_us) / 1000), 1) or 0
      if (added > 0 or w.ttl == -1) and w.reset_ms > 0 then
        if added == 0 and trim then later('ZREMRANGEBYSCORE', w.key, '-inf', trim) end
        later('PEXPIRE', w.key, w.reset_ms)
      elseif w.ttl == -1 then
        later('DEL', w.key)                         -- a log without TTL whose entries all left the window
      end
      if not w.fits then
        -- The hit passes once the base total reaches `need`: when the first member holding it
        -- leaves the window. Totals grow with rank, so a binary search finds it.
        local need = w.newest_total + added + cost - w.limit
        local at = ts
        if need <= w.newest_total then
          local last = redis.call('ZCARD', w.key) - 1
          local lo, hi = 0, last
          while lo < hi do
            local mid = floor((lo + hi) / 2)
            if sl_total(w.key, redis.call('ZRANGE', w.key, mid, mid)[1]) >= need then hi = mid else lo = mid + 1 end
          end
          -- (when that is the newest member and this hit joins it, it moves to ts)
          at = (merged and lo == last) and ts or tonumber(redis.call('ZRANGE', w.key, lo, lo, 'WITHSCORES')[2])
        end
        w.retry_ms = max(ceil((at + w.window_us - now_us) / 1000), 1)
      end
    end
