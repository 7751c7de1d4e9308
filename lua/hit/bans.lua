  ---------------------------------------------------------------- bans
  -- ms left of a ban (-1 = permanent) and, when timed, its end in epoch ms; nil when the key
  -- holds no ban in force. The end is the key's own expiry, not now + ms left: the clock may tick
  -- between the two reads, and the windows must end with the ban, not a millisecond after it.
  local function ban_left(key)
    local ttl = redis.call('PTTL', key)
    if ttl == -2 or ttl == 0 then return nil end     -- 0: it ends within this millisecond
    if ttl > 0 then return ttl, redis.call('PEXPIRETIME', key) end
    local until_ms = stored_int(key, 'until_ms', redis.call('HGET', key, 'until_ms') or 'missing')
    if until_ms == 0 then return -1 end
    later('PEXPIREAT', key, until_ms)               -- a timed ban that lost its TTL
    if until_ms > clock() then return until_ms - now_ms, until_ms end
  end

  local function longer(a, b)                       -- -1 (never) is the longest, nil none
    if a == nil or b == nil then return a or b end
    return (a == -1 or b == -1) and -1 or max(a, b)
  end

  local banned, ban_end                             -- the longer ban: ms left, the later end
  if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
    local user_left, user_end = ban_left(KEYS[1])
    local action_left, action_end = ban_left(KEYS[2])
    banned, ban_end = longer(user_left, action_left), max(user_end or 0, action_end or 0)
  end
