    -- Refund: the newest units leave the log, down to target = max(newest total - cost, base
    -- total). The members whose running total is above target go (ZREMRANGEBYRANK); when target
    -- is above the total of the member before them, a member holding target takes the place of the
    -- first that went, at its score: no unit moves later in time, the TTL stays (it is added first).
    function refund(w)
      local newest_us = w.newest_us
      if not w.replace and w.count > 0 then
        local target = max(w.newest_total - cost, w.base_total)
        local lo, hi = 0, redis.call('ZCARD', w.key) - 1
        while lo < hi do
          local mid = floor((lo + hi) / 2)
          if sl_total(w.key, redis.call('ZRANGE', w.key, mid, mid)[1]) > target then hi = mid else lo = mid + 1 end
        end
        local first = redis.call('ZRANGE', w.key, lo, lo, 'WITHSCORES')
        local before = lo > 0 and redis.call('ZRANGE', w.key, lo - 1, lo - 1, 'WITHSCORES') or {}
        newest_us = before[2] and tonumber(before[2])
        if target > (before[1] and sl_total(w.key, before[1]) or 0) then
          -- Added before the others go: a log emptied first would be deleted, and the ZADD
          -- would make it again without its TTL. At the first's score and with a smaller total,
          -- the new member sorts just before it (rank lo).
          later('ZADD', w.key, first[2], sl_member(target))
          later('ZREMRANGEBYRANK', w.key, lo + 1, -1)
          newest_us = tonumber(first[2])
        else
          later('ZREMRANGEBYRANK', w.key, lo, -1)
        end
        w.changed, w.count = true, target - w.base_total
      end
      w.reset_ms = (w.count > 0 and newest_us and newest_us > w.cut)
        and max(ceil((newest_us + w.window_us - now_us) / 1000), 1) or 0
    end
