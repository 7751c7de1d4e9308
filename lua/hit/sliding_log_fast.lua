    repeat
      -- Sliding log: TIME, the newest member, PTTL, ZCOUNT from now, the base member (the newest
      -- at or before the window's start), then the trim of older members, one ZADD and PEXPIRE.
      -- The new member is scored now: a log holding a member scored now or later (the clock stepped
      -- back) goes the general way, so the newest member's score is not read (~6k instructions).
      -- A refusal writes nothing and reads that score (its reset) and, when the window denies, the
      -- score of the member the retry waits for: the one holding the total that must leave the
      -- window (totals are unique: one ZMSCORE finds both; when no member holds that total exactly,
      -- the general path searches). Under a ban the log's PEXPIRETIME, against the clock, stands
      -- in for its PTTL.
      local t = redis.call('TIME')
      now_us = t[1] * 1000000 + t[2]
      now_ms = floor(now_us / 1000)
      local window_us = window * 1000
      local format = string.format
      local at = format('%d', now_us)
      local count, newest_total, trim, stale, ttl = 0, 0, nil, false, -2
      local newest = redis.pcall('ZRANGE', key, '-1', '-1')
      if newest.err then break end
      local exists = newest[1]
      if exists then
        -- (members of the old "<us>-<seq>" format or of no format: the general path)
        if not exists:find('^%d+$') then break end
        if bans then                                    -- (against the clock, as the ban's)
          local expires = redis.call('PEXPIRETIME', key)
          ttl = expires < 0 and expires or max(expires - now_ms, 0)
        else
          ttl = redis.call('PTTL', key)
        end
        if ttl == 0 then break end
        newest_total = exists + 0
        -- The last hit trimmed all but the base, so the members at or before the cut are few and
        -- at the head: up to 8 are read from there (a listpack is walked, not searched: asking
        -- for the base walks back through the whole window); when all 8 are that old, it is asked for.
        -- (the cut spelled by string.format: cheaper than Redis' %.17g, the same digits)
        local cut = format('%d', now_us - window_us)
        local old = redis.pcall('ZRANGEBYSCORE', key, '-inf', cut, 'WITHSCORES', 'LIMIT', '0', '8')
        if old.err then break end
        local n = #old
        if n == 16 then
          old, n, stale = redis.call('ZREVRANGEBYSCORE', key, cut, '-inf', 'WITHSCORES', 'LIMIT', '0', '1'), 2, true
        end
        if n > 0 then
          local base, base_us = old[n - 1], old[n]
          -- (a score Redis spells with digits only is what the general path's '(%d' spells)
          if not base:find('^%d+$') or not base_us:find('^%d+$') then break end
          count, trim = newest_total - base, '(' .. base_us
          stale = stale or old[2] ~= base_us    -- members scored below the base: the trim removes them
        else
          count = newest_total
        end
      end
      local after = count + cost
      if bans or after > limit then
        -- (a denial that counts or bans, or a log without TTL: the general path)
        if not (bans or quiet) or ttl == -1 then break end
        -- as the general path's plan of a hit not counted: the log as it is; the member a denial
        -- waits for only when the cost can fit at all
        local waits = not bans and quiet and cost <= limit
        local scores = exists and redis.call('ZMSCORE', key, exists, waits and format('%016d', newest_total + cost - limit) or exists)
        local newest_us = scores and tonumber(scores[1])
        r_count, r_reset = count, 0
        if newest_us and newest_us > now_us - window_us then
          r_reset = max(ceil((newest_us + window_us - now_us) / 1000), 1)
        end
        if bans then
          local left, ends = banned_at(now_ms, key)
          -- the log ends with the ban (PEXPIREAT LT): unless it does already, a write
          if not left or (left > 0 and ttl > 0 and mode ~= 'peek' and now_ms + ttl > ends) then break end
          if left > 0 and left < r_reset then r_reset = left end
          refused, r_retry = 'banned', left
        elseif quiet then
          r_retry = -1                                  -- (a cost over the limit never fits)
          if waits then
            if not scores[2] then break end
            r_retry = max(ceil((scores[2] + window_us - now_us) / 1000), 1)
          end
          refused = 'deny'
        end
        break
      end
      if mode ~= 'hit' then break end
      if exists and redis.pcall('ZCOUNT', key, at, '+inf') ~= 0 then break end   -- (one scored now too: rare)
      if warn > 0 and count <= warn and after > warn then break end   -- crossing the warn level: an audit entry
      local member = format('%016d', newest_total + cost)
      -- Every write is allowed before the first runs; the first is checked by running it (refused,
      -- it writes nothing). A trim that would remove nothing is only checked (the general path runs
      -- it). PEXPIRE goes first on a log that exists, last on a new one; its TTL is window_ms.
      if trim and not redis.acl_check_cmd('ZREMRANGEBYSCORE', key, '-inf', trim) then break end
      if exists then
        if not redis.acl_check_cmd('ZADD', key, at, member) or type(redis.pcall('PEXPIRE', key, window)) ~= 'number' then
          break
        end
        if stale then redis.call('ZREMRANGEBYSCORE', key, '-inf', trim) end
        redis.call('ZADD', key, at, member)
      else
        if not redis.acl_check_cmd('PEXPIRE', key, window) or type(redis.pcall('ZADD', key, at, member)) ~= 'number' then
          break
        end
        redis.call('PEXPIRE', key, window)
      end
      return { 1, (warn > 0 and after > warn) and 'warn' or 'ok', after, limit, limit - after, window_us / 1000, 0 }
    until true
