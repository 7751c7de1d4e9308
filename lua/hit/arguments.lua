  ---------------------------------------------------------------- arguments
  -- Earlier contracts' layouts: 1 had the two bans and the user's audit stream before the state
  -- keys, 2 added the global audit stream (full form) and had no overrides hash in either form.
  -- (KEYS[3] was the user's audit stream in the full forms, a state key in the short one.)
  local old = (#ARGV == FIXED_ARGS + 2 * (#KEYS - 3) and #KEYS >= 4 and 1)
    or (#ARGV == FIXED_ARGS + 2 * (#KEYS - 4) and #KEYS >= 5 and 2)
  local old_short = SCRIPT == 'hit' and #ARGV == 2 * #KEYS - 1 and #KEYS >= 3
  if ((old and KEYS[3]:sub(-7) == '}:audit') or (old_short and KEYS[3]:find(':%l%l:%d+$')))
    and KEYS[1]:sub(-4) == ':ban' and KEYS[2]:sub(-4) == ':ban' then
    old = old or 2
    fail('TG_CONTRACT', 'this call has the layout of script contract ' .. old .. '; these scripts follow contract 3, '
      .. 'where KEYS[3] is the user\'s overrides hash (lua/README.md, "Contract version")')
  end
  -- A trailing "override": the windows passed are the user's override's (hit/override.lua).
  local marked = ARGV[#ARGV] == 'override' and #ARGV % 2 == (short and 0 or 1)
  if short then KEYS, ARGV = full_form(KEYS, ARGV) end
  local n = #KEYS - FIXED_KEYS
  if n < 1 then
    fail('TG_INVALID', string.format(SCRIPT .. ' needs %d keys (user ban, action ban, overrides, user audit, global audit) plus one state key per window, got %d',
      FIXED_KEYS + 1, #KEYS))
  end
  if n > MAX_WINDOWS then fail('TG_INVALID', string.format('at most %d windows, got %d', MAX_WINDOWS, n)) end
  if #ARGV ~= FIXED_ARGS + 2 * n + (marked and 1 or 0) then
    fail('TG_INVALID', string.format(SCRIPT .. ' with %d windows needs %d arguments, got %d', n, FIXED_ARGS + 2 * n, #ARGV))
  end
  local mode = ARGV[1]
  if mode ~= MODE_A and mode ~= MODE_B and mode ~= MODE_C then
    fail('TG_INVALID', 'mode must be ' .. MODE_A .. (MODE_C and ', ' .. MODE_B .. ' or ' .. MODE_C or ' or ' .. MODE_B))
  end
  local code = (alg == 'fixed_window' and 'fw') or (alg == 'sliding_log' and 'sl') or (alg == 'sliding_window' and 'sw')
    or (alg == 'token_bucket' and 'tb') or nil
  if not code then
    fail('TG_INVALID', 'algorithm must be fixed_window, sliding_log, sliding_window or token_bucket')
  end
  local cost = arg_int(3, 'cost', 1, MAX_COUNT)
  if ARGV[4] ~= '0' and ARGV[4] ~= '1' then fail('TG_INVALID', 'count_denied must be 0 or 1') end
  local count_denied = ARGV[4] == '1'
  local warn = arg_int(5, 'warn', 0, MAX_COUNT)
  local ban_ms = arg_int(6, 'ban_ms', 0, MAX_BAN_MS)
  local ban_until = ARGV[7]
  if ban_until ~= '' and ban_until ~= 'midnight' then fail('TG_INVALID', 'ban_until must be "" or "midnight"') end
  local zone = ARGV[8] ~= '0' and parse_offsets(ARGV[8]) or nil     -- nil: UTC, nothing to parse
  local user, action, channel, align = ARGV[9], ARGV[10], ARGV[11], ARGV[12]
  if #action < 1 or #action > MAX_ID then fail('TG_INVALID', string.format('action id must be 1..%d bytes, got %d', MAX_ID, #action)) end
  if #user < 1 or #user > MAX_ID then fail('TG_INVALID', string.format('user id must be 1..%d bytes, got %d', MAX_ID, #user)) end
  if align ~= 'first_hit' and align ~= 'calendar' then fail('TG_INVALID', 'align must be first_hit or calendar') end
  local calendar = align == 'calendar'
  if calendar and alg ~= 'fixed_window' then fail('TG_INVALID', 'calendar windows need fixed_window') end

  -- The keys must be the ones the escaping rules give, or two clients would count apart.
  local user_tag = '{' .. escape(user) .. '}'
  local prefix = KEYS[1]:match('^([^{]*:){') or ''           -- "<p>:" (a prefix holds no brace)
  local base = prefix .. user_tag
  local escaped_action = escape(action)
  local action_base = base .. ':' .. escaped_action
  local prefix_ok = #prefix >= 2 and prefix:byte(-1) == 58   -- ends with ':'
  local function expect_key(i, wanted)
    if KEYS[i] ~= wanted or not prefix_ok then
      fail('TG_INVALID', string.format('KEYS[%d] is "%s", expected "%s" (ids escaped as in lua/README.md)',
        (short and i > 3) and i - 2 or i, KEYS[i]:sub(1, 200), wanted:sub(1, 200)))
    end
  end
  expect_key(1, base .. ':ban')
  expect_key(2, action_base .. ':ban')
  expect_key(3, base .. ':overrides')
  expect_key(4, base .. ':audit')
  if KEYS[5] ~= '' and KEYS[5] ~= KEYS[4] then expect_key(5, prefix .. 'audit') end

  local windows, seen = {}, n > 1 and {} or nil
  for i = 1, n do
    local w = { key = KEYS[FIXED_KEYS + i] }
    w.limit = arg_int(FIXED_ARGS - 1 + 2 * i, 'limit', 1, alg == 'sliding_log' and MAX_LOG or MAX_COUNT)
    w.window_ms = arg_int(FIXED_ARGS + 2 * i, 'window_ms', 1, MAX_WINDOW_MS)
    w.window_us = w.window_ms * 1000
    if seen then
      if seen[w.window_ms] then fail('TG_INVALID', 'window_ms ' .. int(w.window_ms) .. ' appears twice') end
      seen[w.window_ms] = true
    end
    if alg == 'token_bucket' and w.limit > w.window_us then
      fail('TG_INVALID', 'token_bucket needs limit <= window_ms * 1000 (one token per microsecond at most)')
    end
    if calendar and w.window_ms ~= MINUTE and w.window_ms ~= HOUR and w.window_ms ~= DAY and w.window_ms ~= WEEK then
      fail('TG_INVALID', 'calendar windows are 60000, 3600000, 86400000 or 604800000 ms, got ' .. int(w.window_ms))
    end
    local digits = ARGV[FIXED_ARGS + 2 * i]                  -- the key names window_ms without leading zeros
    if digits:byte(1) == 48 then digits = tostring(w.window_ms) end   -- (< 2^35: all its digits)
    expect_key(FIXED_KEYS + i, action_base .. ':' .. code .. ':' .. digits)
    windows[i] = w
  end

  if alg ~= 'fixed_window' then clock() end
