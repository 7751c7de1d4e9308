  ---------------------------------------------------------------- bans
  -- ms left of a ban (-1 = permanent) and, when timed, its end in epoch ms; nil when the key
  -- holds no ban in force. Both come from the key's own expiry and the one clock reading the
  -- windows' TTLs are taken against too (hit/windows.lua): a PTTL per key could straddle a
  -- millisecond, and a window ending with the ban would then report a reset before the retry.
  local function ban_left(key)
    local at = redis.call('PEXPIRETIME', key)
    if at == -2 then return nil end
    if at >= 0 then
      if at > clock() then return at - now_ms, at end
      return nil                                    -- it ends within this millisecond
    end
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
