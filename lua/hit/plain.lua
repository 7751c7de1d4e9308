  -- A plain one-window hit of this algorithm, no ban key and no overrides hash present: cost, warn, limit, window
  -- (window_ms as its digits) and the state key. Numbers must be digits only and short enough to be in range
  -- whatever they hold (cost and warn 9 digits, limit 10, window_ms 10 and no leading 0, as it
  -- names the key, ban_ms 12): only cost, limit and a warn other than "0" are read.
  -- mode: hit, shadow or peek (only a refusal takes a fast path in the last two); quiet: a denial
  -- writes nothing (count_denied off, no automatic ban); noban: no automatic ban; tally:
  -- count_denied ("1" on); over: a denial that counts; banned: a ban is in force, ban_left its
  -- ms left (-1 never) and ban_ends the later end of a timed one (0 none), both against the
  -- clock read here when a ban is timed.
  -- refused, r_count, r_reset, r_retry: a refusal's tier and numbers, for hit/refusal.lua (a
  -- sliding window's retry from sw_W, sw_cur, sw_prev, sw_elapsed: locals, as a table costs more;
  -- under a ban r_ttl, the state key's TTL against the clock, -2 none).
  -- (the locals left nil follow each other: one instruction clears them all)
  local mode, quiet = ARGV[1], true
  local plain, cost, warn, limit, window, key, cost_s, limit_s, on_calendar, tally, noban, over, banned, ban_left, ban_ends
  local refused, r_count, r_reset, r_retry, r_ttl, sw_W, sw_cur, sw_prev, sw_elapsed
  repeat
    local A, K = ARGV, KEYS
    local user_ban, action_ban, overrides = K[1], K[2], K[3]
    local code = (alg == 'fixed_window' and 'fw') or (alg == 'token_bucket' and 'tb')
      or (alg == 'sliding_window' and 'sw') or (alg == 'sliding_log' and 'sl') or nil
    if #A == 5 and #K == 4 then
      -- The short form (a plain policy; the ids are only in the keys, plain ones here): one
      -- find checks all four keys and both numbers. With the lengths below, the keys must be
      -- <head>ban, <head><action>:ban, <head>overrides and <head><action>:<code>:<window> exactly, where <head> is
      -- "<p>:{<user>}:" (cost and limit 1.., digits, no leading 0; limit's range checked below;
      -- the user id's length from the two positions around it).
      cost_s, limit_s, window, key = A[3], A[4], A[5], K[4]
      if (mode ~= 'hit' and mode ~= 'shadow' and mode ~= 'peek') or #cost_s > 9 or #limit_s > 10 then break end
      local found, _, head, user_at, user_end, action, kind, w =
        (user_ban .. ' ' .. action_ban .. ' ' .. overrides .. ' ' .. key .. ' ' .. cost_s .. ' ' .. limit_s):find(
          '^([^{]+:{()[%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]+()}:)ban %1([%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]+):ban %1overrides %1%4:(%l%l):([1-9]%d*) [1-9]%d* [1-9]%d*$')
      -- (the overrides key needs no length of its own: with the others' lengths right, the
      -- pattern can only place it exactly between the action ban and the state key)
      if not found or kind ~= code or w ~= window or #w > 10 or #user_ban ~= #head + 3 or #action_ban ~= #head + #action + 4
        or #key ~= #head + #action + 4 + #w or user_end - user_at > MAX_ID or #action > MAX_ID then
        break
      end
      cost, limit, warn = cost_s + 0, limit_s + 0, 0
      if limit > (alg == 'sliding_log' and MAX_LOG or MAX_COUNT) then break end
    else
      -- The full form: the ids as they are, the keys built from them.
      if #K ~= 6 or #A ~= 14 or (mode ~= 'hit' and mode ~= 'shadow' and mode ~= 'peek') or A[8] ~= '0' then
        break
      end
      local c, w, b, l, denied, ban_until = A[3], A[5], A[6], A[13], A[4], A[7]
      window, cost_s, limit_s = A[14], c, l
      -- calendar: a fixed window of a minute, hour, day or week in UTC (offsets "0")
      if A[12] ~= 'first_hit' then
        if A[12] ~= 'calendar' or alg ~= 'fixed_window'
          or (window ~= '60000' and window ~= '3600000' and window ~= '86400000' and window ~= '604800000') then
          break
        end
        on_calendar = true
      end
      if #c < 1 or #c > 9 or #w < 1 or #w > 9 or #b < 1 or #b > 12 or #l < 1 or #l > 10 or #window < 1 or #window > 10
        or (denied ~= '0' and denied ~= '1') or (ban_until ~= '' and ban_until ~= 'midnight')
        or not (window .. c .. w .. b .. l):find('^[1-9]%d*$') then
        break
      end
      cost, limit, warn = c + 0, l + 0, w == '0' and 0 or w + 0     -- (arithmetic reads them faster than tonumber)
      noban = b == '0' and ban_until == ''
      quiet, tally = noban and denied == '0', denied
      local user, action = A[9], A[10]
      local user_len, action_len = #user, #action
      -- (ids made of unescaped bytes only: NOT_PLAIN's set, anchored, is one pass over them)
      if cost < 1 or limit < 1 or limit > (alg == 'sliding_log' and MAX_LOG or MAX_COUNT) or user_len < 1
        or user_len > MAX_ID or action_len < 1 or action_len > MAX_ID
        or not (user .. action):find('^[%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]*$') then
        break
      end
      -- The keys, as the general check builds them ("<p>:" holds no brace and ends with ':'), each
      -- compared whole: a key spelled right is already a string, so building it again allocates nothing.
      local audit, global = K[4], K[5]
      local prefix_len = #user_ban - user_len - 6     -- <p>:{<user>}:ban
      local prefix = prefix_len >= 2 and user_ban:sub(1, prefix_len)
      key = K[6]
      if not code or not prefix or not prefix:find('^[^{]*:$')
        or user_ban ~= prefix .. '{' .. user .. '}:ban' or action_ban ~= prefix .. '{' .. user .. '}:' .. action .. ':ban'
        or overrides ~= prefix .. '{' .. user .. '}:overrides'
        or audit ~= prefix .. '{' .. user .. '}:audit' or key ~= prefix .. '{' .. user .. '}:' .. action .. ':' .. code .. ':' .. window
        or (global ~= '' and global ~= audit and global ~= prefix .. 'audit') then
        break
      end
    end
    local found = redis.call('EXISTS', user_ban, action_ban, overrides)
    if found ~= 0 then
      -- A ban or the overrides hash. Only bans go on (the banned reply, below), each either timed
      -- or permanent (until_ms 0): a ban that lost its TTL is repaired by the general path. (The
      -- action's ban first: an automatic ban is one, and then the user's need not be asked.)
      local action_at = redis.call('PEXPIRETIME', action_ban)
      local user_at = found > (action_at ~= -2 and 1 or 0) and redis.call('PEXPIRETIME', user_ban) or -2
      if (user_at ~= -2 and 1 or 0) + (action_at ~= -2 and 1 or 0) ~= found
        or (user_at == -1 and redis.pcall('HGET', user_ban, 'until_ms') ~= '0')
        or (action_at == -1 and redis.pcall('HGET', action_ban, 'until_ms') ~= '0') then
        break
      end
      -- As bans.lua's ban_left, once: ms left (-1 never) and the later end of a timed ban; none in
      -- force (one ending within this millisecond is over): the general path. A timed ban cuts
      -- the window `key` to its end (PEXPIREAT ... LT): the general path asks the ACL about that
      -- write even when it changes nothing, so this asks too (refused: the general path answers
      -- TG_NOPERM; the time is no part of the ACL's decision).
      -- The clock: a token bucket and a sliding log reckon in µs (TIME); a fixed or sliding
      -- window in whole ms, which the later ban's PTTL gives against its end, one command
      -- instead of TIME's two numbers (now_us stays nil: the general path reads TIME itself).
      ban_left, ban_ends = -1, 0
      if user_at > 0 or action_at > 0 then
        local at, later = action_at, action_ban
        if user_at > action_at then at, later = user_at, user_ban end
        if alg == 'token_bucket' or alg == 'sliding_log' then
          local t = redis.call('TIME')
          now_us = t[1] * 1000000 + t[2]
          now_ms = floor(now_us / 1000)
        else
          local left = redis.call('PTTL', later)
          if left <= 0 then break end                   -- (over, or within its last millisecond)
          now_ms = at - left
        end
        if at > now_ms then ban_ends = at end
      end
      if user_at ~= -1 and action_at ~= -1 then
        if ban_ends == 0 then break end
        ban_left = ban_ends - now_ms
        if mode ~= 'peek' and not redis.acl_check_cmd('PEXPIREAT', key, '0', 'LT') then break end
      end
      banned = true
    end
    plain = true
  until true
