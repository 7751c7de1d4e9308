  ---------------------------------------------------------------- override
  -- The user's override of this action, else of every action ("*"), while in force (a field past
  -- its until_ms is ignored; the next override write drops it). "limit" puts its limits on the
  -- windows; "unlimited" exempts the user: counted, never denied, never banned automatically.
  -- State keys are named by their window: an override with other window lengths than those
  -- passed would need keys this call did not declare, so TG_OVERRIDE tells the caller which
  -- windows to send ("policy", or the override's), and a call marked "override" (its windows
  -- are the override's) is redirected back when that override no longer applies.
  local applied, exempt, spec = '', false, nil       -- reply [8]
  local stored = redis.pcall('HMGET', KEYS[3], escaped_action, '*')
  if stored.err then
    assert_type(KEYS[3], 'hash', 'an overrides hash')
    error(stored, 0)
  end
  for i = 1, 2 do
    local value = stored[i]
    if value and not spec then
      local kind, until_ms, text = value:match('^(%l+) (%d+) %d+ (%S+) %d+ ')
      if (kind ~= 'limit' and kind ~= 'unlimited') or #until_ms > 15 then
        fail('TG_CORRUPT', string.format('key %s holds "%s" in field %s, expected an override', KEYS[3],
          value:sub(1, 60), i == 1 and escaped_action:sub(1, 200) or '*'))
      end
      if until_ms == '0' or until_ms + 0 > clock() then applied, spec = kind, text end
    end
  end
  if applied == 'limit' then
    local limits, count = {}, 0
    for ms, limit in spec:gmatch('(%d+):(%d+)') do
      limits[ms + 0], count = limit + 0, count + 1
    end
    local same = count == #windows
    for _, w in ipairs(windows) do same = same and limits[w.window_ms] ~= nil end
    if not same then fail('TG_OVERRIDE', spec) end
    local most = alg == 'sliding_log' and MAX_LOG or MAX_COUNT
    for _, w in ipairs(windows) do   -- within the algorithm's range, as a policy's limit
      w.limit = max(1, min(limits[w.window_ms], most, alg == 'token_bucket' and w.window_us or most))
    end
  elseif marked then
    fail('TG_OVERRIDE', 'policy')
  end
  exempt = applied == 'unlimited'
