    -- Fixed window: GET, then SET ... PX when new; else PTTL and INCRBY (+ PEXPIRE when TTL-less),
    -- no TIME. INCRBY takes exactly the counters the general path counts the same way (a
    -- canonical integer; not "007", "-0", a float, a wrong type: those it refuses, nothing
    -- written, and the general path decides); it stands in for the general path's SET, so SET is
    -- the command asked about. A refusal reads the counter and its TTL (under a timed ban the
    -- counter's PEXPIRETIME against the ban's clock, as the general path takes it), writes nothing
    -- and answers; a denial that counts (count_denied, no automatic ban) counts as an allowed hit
    -- does and answers deny. A calendar window's counter that lost its TTL goes the general way.
    repeat
      local stored = redis.pcall('GET', key)
      if not stored then                                -- a new window
        if banned or cost > limit then                  -- banned, or a cost that never fits
          if banned then
            refused, r_retry, r_ttl = 'banned', ban_left, -2
          elseif quiet then
            refused, r_retry = 'deny', -1
          end
          r_count, r_reset = 0, 0
          break
        end
        if mode ~= 'hit' or (warn > 0 and cost > warn) then break end
        -- A calendar window ends at the next UTC boundary after now (weeks from Monday), as the
        -- general path's local_boundary works it out for offsets "0", and expires at it (PXAT).
        local length, px, at = window + 0, 'PX', window
        if on_calendar then
          if not now_ms then
            local t = redis.call('TIME')
            now_us = t[1] * 1000000 + t[2]
            now_ms = floor(now_us / 1000)
          end
          local d = floor(now_ms / DAY)
          at = length + (length == WEEK and (d - (d + 3) % 7) * DAY or floor(now_ms / length) * length)
          px, length = 'PXAT', at - now_ms
        end
        -- SET is the general path's own write: checked by running it (refused, it writes nothing)
        if redis.pcall('SET', key, cost_s, px, at).err then break end
        return { 1, 'ok', cost, limit, limit - cost, length, 0 }
      end
      local before = tonumber(stored)                   -- (nil for another type's error reply)
      if not before or before < 0 then break end
      local ttl, at
      if now_ms then                                    -- (a timed ban: against its clock)
        at = redis.call('PEXPIRETIME', key)
        ttl = at < 0 and at or max(at - now_ms, 0)
      else
        ttl = redis.call('PTTL', key)
      end
      if ttl == 0 then break end                        -- it expires within this millisecond
      if banned or before + cost > limit then
        if banned or tally ~= '1' or not noban or mode ~= 'hit' or #stored > 15 then
          -- (a denial that bans: the general path) the counter as the general path reads it
          -- (digits), and with its TTL (else it repairs it)
          if not (banned or quiet) or ttl == -1 or #stored > 15 or not stored:find('^%d+$') then break end
          r_count, r_reset = before, ttl
          if banned then
            refused, r_retry, r_ttl = 'banned', ban_left, ttl
          else
            refused, r_retry = 'deny', cost > limit and -1 or ttl
          end
          break
        end
        -- a denial that counts (tally): an allowed hit's write, below; its count stays exact, far
        -- below the 2^50 the general path saturates at (and one crossing the warn level, which
        -- only an allowed hit reports, goes the general way all the same)
        over = true
      end
      if mode ~= 'hit' or (warn > 0 and before <= warn and before + cost > warn)
        or not redis.acl_check_cmd('SET', key, cost_s, 'KEEPTTL')
        or (ttl == -1 and (on_calendar or not redis.acl_check_cmd('PEXPIRE', key, window))) then
        break
      end
      local count = redis.pcall('INCRBY', key, cost_s)
      if count ~= before + cost then break end          -- refused: not a canonical integer
      if ttl == -1 then                                 -- a counter that lost its TTL gets its window again
        redis.call('PEXPIRE', key, window)
        ttl = window + 0
      end
      if over then return { 0, 'deny', count, limit, 0, ttl, cost > limit and -1 or ttl } end
      return { 1, (warn > 0 and count > warn) and 'warn' or 'ok', count, limit, limit - count, ttl, 0 }
    until true
