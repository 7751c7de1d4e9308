    repeat
      -- Sliding log: TIME, the newest member, PTTL, ZCOUNT from now, the base member (the newest
      -- at or before the window's start), then the trim of older members, one ZADD and PEXPIRE.
      -- The new member is scored now: a log holding a member scored now or later (the clock stepped
      -- back) goes the general way, so the newest member's score is not read (~6k instructions).
      -- A refusal writes nothing and reads that score (its reset) and, when the window denies, the
      -- score of the member the retry waits for: the one holding the total that must leave the
      -- window (totals are unique: one ZMSCORE finds both, one ZSCORE when that is the newest;
      -- when no member holds that total exactly, the general path searches). Under a ban the
      -- log's PEXPIRETIME, against the clock, stands in for its PTTL, and the newest member comes
      -- with its score (WITHSCORES: one command fewer than its ZSCORE).
      if not now_us then                                -- (a timed ban read it already)
        local t = redis.call('TIME')
        now_us = t[1] * 1000000 + t[2]
        now_ms = floor(now_us / 1000)
      end
      local window_us = window * 1000
      local format = string.format
      local count, newest_total, trim, stale, ttl = 0, 0, nil, false, -2
      -- (under a ban the reply's reset needs the newest member's score: asked for here)
      local newest = banned and redis.pcall('ZRANGE', key, '-1', '-1', 'WITHSCORES') or redis.pcall('ZRANGE', key, '-1', '-1')
      if newest.err then break end
      local exists = newest[1]
      if exists then
        -- (members of the old "<us>-<seq>" format or of no format: the general path)
        if not exists:find('^%d+$') then break end
        if banned then                                  -- (against the clock, as the ban's)
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
      if banned or after > limit then
        -- (a denial that counts or bans, or a log without TTL: the general path)
        if not (banned or quiet) or ttl == -1 then break end
        -- as the general path's plan of a hit not counted: the log as it is; the member a denial
        -- waits for only when the cost can fit at all: the newest itself when the cost is the
        -- limit and it is spelled as this script writes members (then one ZSCORE: each score
        -- Redis spells costs it ~5k instructions)
        local waits = not banned and cost <= limit
        local newest_s, waits_s
        if exists then
          if waits and (cost < limit or #exists ~= 16) then
            local scores = redis.call('ZMSCORE', key, exists, format('%016d', newest_total + cost - limit))
            newest_s, waits_s = scores[1], scores[2]
          else
            newest_s = newest[2] or redis.call('ZSCORE', key, exists)
            waits_s = newest_s
          end
        end
        local newest_us = newest_s and newest_s + 0     -- (a score Redis spelled: a number)
        r_count, r_reset = count, 0
        if newest_us and newest_us > now_us - window_us then
          r_reset = max(ceil((newest_us + window_us - now_us) / 1000), 1)
        end
        if banned then
          refused, r_retry, r_ttl = 'banned', ban_left, ttl
        else
          r_retry = -1                                  -- (a cost over the limit never fits)
          if waits then
            if not waits_s then break end
            r_retry = max(ceil((waits_s + window_us - now_us) / 1000), 1)
          end
          refused = 'deny'
        end
        break
      end
      if mode ~= 'hit' then break end
      local at = format('%d', now_us)
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
