    -- Fixed window: SET ... PX when new; else INCRBY and PTTL (+ PEXPIRE when TTL-less), no TIME.
    -- INCRBY takes exactly the counters the general path counts the same way (a canonical
    -- integer; not "007", "-0", a float, a wrong type: those it refuses and nothing is written).
    -- It is undone by INCRBY -cost, which restores the very digits, when the general path must
    -- decide: a denial, a warn crossing, a negative counter, a TTL of 0, a refused PEXPIRE.
    repeat
      -- the general path writes SET: INCRBY stands in for it, so SET is the command to allow
      if not redis.acl_check_cmd('SET', key, cost_s, 'KEEPTTL') then break end
      if not present then
        if cost > limit or (warn > 0 and cost > warn) then break end
        redis.call('SET', key, cost, 'PX', window)
        return { 1, 'ok', cost, limit, limit - cost, window + 0, 0 }
      end
      local count = redis.pcall('INCRBY', key, cost_s)
      if type(count) ~= 'number' then break end
      local before, ttl = count - cost, redis.call('PTTL', key)
      if count > limit or before < 0 or ttl == 0 or (warn > 0 and before <= warn and count > warn)
        or (ttl == -1 and not redis.acl_check_cmd('PEXPIRE', key, window)) then
        redis.call('INCRBY', key, -cost)
        break
      end
      if ttl == -1 then                          -- a counter that lost its TTL gets its window again
        redis.call('PEXPIRE', key, window)
        ttl = window + 0
      end
      return { 1, (warn > 0 and count > warn) and 'warn' or 'ok', count, limit, limit - count, ttl, 0 }
    until true
