--[[ hit.lua: count one hit of an action (mode "hit"), count it without denying ("shadow"), or
report what a hit would get ("peek").

KEYS[1]          user-wide ban hash        <p>:{<user>}:ban
KEYS[2]          action ban hash           <p>:{<user>}:<action>:ban
KEYS[3]          the user's overrides      <p>:{<user>}:overrides   (hash; see lua/README.md, "Overrides")
KEYS[4]          user audit stream         <p>:{<user>}:audit
KEYS[5]          global audit stream       <p>:audit  ("" or KEYS[4] again = no global mirror, e.g. on a Cluster)
KEYS[6..5+n]     one state key per window  <p>:{<user>}:<action>:<fw|sl|sw|tb>:<window_ms>   (1 <= n <= 8)
                 Every key must be exactly the one lua/README.md builds from ARGV[9], ARGV[10].

ARGV[1]          mode: "hit" | "peek" | "shadow"  (peek writes nothing at all, not even repairs;
                 shadow decides and counts as hit does but always allows and writes no ban)
ARGV[2]          algorithm: fixed_window | sliding_log | sliding_window | token_bucket
ARGV[3]          cost, integer 1..1e9
ARGV[4]          count_denied: "0" | "1"  (denied hits still count; hits refused by a ban never do)
ARGV[5]          warn level, 0 = none; applies to the first window
ARGV[6]          ban_ms on exceeding, 0 = no ban
ARGV[7]          ban_until: "" | "midnight" (next local midnight; with ban_ms too, the later end wins)
ARGV[8]          UTC offsets of the policy's time zone: "<offset_ms>" or
                 "<offset_ms>,<utc_ms>:<offset_ms>,..." (offset before the first change, then each
                 change ascending); local = utc + offset, |offset| <= 18 h
ARGV[9]          raw user id, 1..1024 bytes
ARGV[10]         raw action id, 1..1024 bytes
ARGV[11]         events channel, "" = do not publish
ARGV[12]         align: "first_hit" (windows start at the first hit) | "calendar" (fixed_window
                 only, windows of 60000/3600000/86400000/604800000 ms aligned to the local
                 minute/hour/day/week, weeks from Monday, in the zone of ARGV[8])
ARGV[13..12+2n]  n pairs limit_i (1..1e9), window_ms_i (1..31536000000, all different), in the
                 order of KEYS[6..]; then, optionally, the marker "override": the pairs are the
                 user's limit override's (sent again after TG_OVERRIDE), and the script checks
                 that this override still applies

The short form, for a policy with count_denied 0, warn 0, ban_ms 0, ban_until "", offsets "0",
no events channel and align first_hit (it can never write an audit entry), told apart by
#ARGV == 2 * #KEYS - 3 (- 2 with the marker): the keys are the two bans, the overrides, then the
state keys; the arguments mode, algorithm, cost, the pairs, then the optional marker. The ids are read from the keys, which must be exactly
what escaping them gives; replies, errors and writes are the full form's.

Reply: { allowed 1|0, tier "ok"|"warn"|"deny"|"banned", count, limit, remaining, reset_ms, retry_after_ms }
  and, only when an override of the user decided, [8] "limit"|"unlimited" and [9] shadow 0|1.
  An override (the action's own, else "*"; one past its until_ms is ignored): "limit" puts its
  limits on the windows sent when they have its window lengths; "unlimited" counts the hit in the
  policy's windows but never denies it nor bans automatically.
  count, limit, remaining and reset_ms are those of the binding window: when denied, the denying window
  with the longest retry_after; otherwise (and when banned) the window with the smallest remaining.
  reset_ms: ms until that window holds nothing any more (0 if it holds nothing); never after the
  end of a timed ban in force or just created, and equal to retry_after_ms when the window ends
  with it (both from one TIME and the keys' PEXPIRETIME).
  retry_after_ms: 0 when allowed; when denied, ms until a hit of this cost could pass; when a ban is
  in force or was just created, exactly the ms until it ends (-1 = never: permanent ban, or a deny
  whose cost > limit, even one that creates a ban). A ban whose PTTL is 0 is over.
  The end of a ban is a fresh start: every window of the action that was counting when the user
  ran into the ban expires with the ban (PEXPIREAT <the ban key's expiry> LT).
Mode "peek": the reply is the one "hit" would give, with four more elements: [8] the override
  that decided ("" for none), [9] 0, [10] count and [11] reset_ms of the same window as it
  stands, before that hit (a hit that does not fit may count less than its cost).
Mode "shadow": the reply is the one "hit" would give, except allowed is always 1, and it has two
  more elements: [8] the override that decided ("" for none) and [9] 1, or 2 when "hit" would
  have created the policy's automatic ban (its tier "deny" and retry_after_ms are then the
  would-be ban's; none is written: no ban hash, no auto_ban audit entries, no ban event, the
  windows keep their expiry). A ban in force is reported (tier
  "banned") and nothing counts, as with "hit". Every other write is the one "hit" makes.
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key of ours holds a value of the wrong shape),
  TG_CONTRACT (the KEYS/ARGV layout of an earlier script contract),
  TG_OVERRIDE <windows> (nothing written: the user's override has other window lengths than those
  sent; send the call again with "<window_ms>:<limit>,..." and the marker, or with the policy's
  own windows for "policy"),
  TG_NOPERM (the ACL user may not run one of the writes this hit needs: every key is left as it was).
An automatic ban writes the ban, the user's audit entry and the global one together, or nothing.
Several windows are all-or-nothing: a hit counts in every window or in none (unless count_denied).
The common hit (one window from the first hit, no ban, allowed) takes a fast path of its algorithm
with the same answers; see lua/README.md, "Fast paths and the general path".

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

-- Bounds and lifetimes the scripts share (lua/README.md).
local MAX_BAN_MS = 3153600000000         -- a ban lasts at most 100 years
local MAX_WINDOW_MS = 31536000000        -- a window is at most a year long
local AUDIT_TTL_MS = 7776000000          -- a user's history lives 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000          -- MAXLEN ~ of the global audit stream (a user's: 1000)
local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local FIXED_KEYS = 5            -- KEYS before the state keys
local FIXED_ARGS = 12           -- ARGV before the limit/window pairs
local MAX_WINDOWS = 8
local MAX_ID = 1024
local MAX_COUNT = 1000000000
local MAX_STORED = 2 ^ 50       -- counters saturate here, so every product below stays exact
local MAX_LOG = 100000          -- a sliding log keeps at most one zset member per unit in its window
local MAX_OFFSET_MS = 64800000
local MINUTE, HOUR, DAY, WEEK = 60000, 3600000, 86400000, 604800000

---------------------------------------------------------------- fast paths
-- The common hit (one window from the first hit, no ban, allowed and not crossing the warn
-- level) takes a straight line per algorithm: the few commands it needs, TIME only where time is
-- the algorithm. Whatever is unusual or in doubt (an escaped id, a non-canonical number, a ban
-- key, a wrong type or shape, a TTL of 0, a denial, a refused ACL check) gives up (`break` out of
-- its `repeat ... until true`), having written nothing, and the general path decides exactly as
-- it always did. Each reads or writes the state before asking its TTL (the general path asks
-- first): tst_HitDifferential tells the two apart by that order. The lines run in the script's
-- own body, not in functions of their own: every closure made, and every upvalue it takes, costs
-- every call; so do strings made and numbers passed to Redis (spelled with %.17g, ~0.2 µs each:
-- small ones go as strings).
local alg = ARGV[2]
local now_us, now_ms                                        -- the server's clock, once read
local clock, to_int, mul_div
do
  -- A plain one-window hit of this algorithm, no ban key and no overrides hash present: cost, warn, limit, window
  -- (window_ms as its digits), the state key and, for the fixed window, whether it exists (the
  -- others learn it from their read). Numbers must be digits only and short enough to be in range
  -- whatever they hold (cost and warn 9 digits, limit 10, window_ms 10 and no leading 0, as it
  -- names the key, ban_ms 12): only cost, limit and a warn other than "0" are read.
  local plain, cost, warn, limit, window, key, present, cost_s, limit_s = false
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
      if A[1] ~= 'hit' or #cost_s > 9 or #limit_s > 10 then break end
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
      if #K ~= 6 or #A ~= 14 or A[1] ~= 'hit' or A[8] ~= '0' or A[12] ~= 'first_hit' then break end
      local c, w, b, l, denied, ban_until = A[3], A[5], A[6], A[13], A[4], A[7]
      window, cost_s, limit_s = A[14], c, l
      if #c < 1 or #c > 9 or #w < 1 or #w > 9 or #b < 1 or #b > 12 or #l < 1 or #l > 10 or #window < 1 or #window > 10
        or (denied ~= '0' and denied ~= '1') or (ban_until ~= '' and ban_until ~= 'midnight')
        or not (window .. c .. w .. b .. l):find('^[1-9]%d*$') then
        break
      end
      cost, limit, warn = c + 0, l + 0, w == '0' and 0 or w + 0     -- (arithmetic reads them faster than tonumber)
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
    if alg == 'fixed_window' then
      -- the state key counted four times (bans and overrides add 0..3): 0 nothing, 4 the state
      -- alone, else a ban or an override
      local found = redis.call('EXISTS', user_ban, action_ban, overrides, key, key, key, key)
      if found ~= 0 and found ~= 4 then break end
      present = found == 4
    elseif redis.call('EXISTS', user_ban, action_ban, overrides) ~= 0 then
      break
    end
    plain = true
  until true

  if plain and alg == 'fixed_window' then
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
  end

  -- The math the fast paths share with the general path. Only the algorithm in use makes its
  -- functions (into the locals above); the fast paths do the common case in line and call
  -- mul_div only past 2^53 (it takes no upvalue: a closure's upvalues cost every call too).
  if alg == 'token_bucket' or alg == 'sliding_window' then
    -- floor(a * b / c) and the remainder, exact for integers 0 <= a, b, c < 2^50 whose quotient stays
    -- below 2^53 (a double holds integers exactly only up to 2^53, and a * b may be far above it).
    -- Past 2^53, b is taken digit by digit in the largest base that keeps every step below 2^53:
    -- a few steps when c is small (a window in µs), at most 25 when c is near 2^50.
    function mul_div(a, b, c)
      local floor = math.floor
      local ab = a * b
      if ab < 2 ^ 53 then
        local q = floor(ab / c)
        return q, ab - q * c
      end
      local q1 = floor(a / c)
      local r1 = a - q1 * c                  -- a * b / c = q1 * b + r1 * b / c, with r1 < c
      local base = 2                         -- c * base <= 2^52, so r * base + r1 * digit < 2^53
      while c * base * 2 <= 2 ^ 52 do base = base * 2 end
      local top = 1
      while top * base <= b do top = top * base end
      local q, r = 0, 0                      -- r1 * (the digits of b so far) = q * c + r
      while top >= 1 do
        local x = r * base + r1 * (floor(b / top) % base)
        local step = floor(x / c)
        q, r = q * base + step, x - step * c
        top = top / base
      end
      return q1 * b + q, r
    end
  end

  -- Each fast path reads the clock itself (as clock() would, which then keeps it) and makes its
  -- reply in line: no function of the general path is called on the way (the algorithms' files
  -- of the general path have the same arithmetic).
  if plain and alg == 'token_bucket' then
    repeat
      -- Token bucket: TIME, GET (+ PTTL only when the TAT is ahead of now), one SET ... PX.
      local window_us = window * 1000
      if limit > window_us then break end
      local t = redis.call('TIME')
      now_us = t[1] * 1000000 + t[2]                    -- (digits: arithmetic reads them)
      now_ms = floor(now_us / 1000)
      local us, num, before = now_us, 0, 0              -- an empty bucket
      local stored = redis.pcall('GET', key)
      if stored then
        if type(stored) ~= 'string' then break end
        -- The TAT "<us>+<num>/<den>" or "<us>", as parse_tat reads it (a negative one: the general path)
        local us_s, n_s, d_s = stored:match('^(%d+)%+(%d+)/(%d+)$')
        local n, d = 0, 1
        if us_s then
          if #us_s > 17 or #n_s > 17 or #d_s > 17 then break end
          n, d = n_s + 0, d_s == limit_s and limit or d_s + 0   -- (the usual den: the limit's own digits)
          if d < 1 or n >= d then break end
        else
          us_s = #stored <= 17 and stored:find('^%d+$') and stored
          if not us_s then break end
        end
        local tat = us_s + 0
        -- (a TAT not ahead of now is an empty bucket whatever the TTL: the SET below gives it one)
        if tat > now_us or (tat == now_us and n > 0) then
          if redis.call('PTTL', key) == 0 then break end   -- it expires within this millisecond
          us, num = tat, (n == 0 or d == limit) and n or mul_div(n, limit, d)
          -- units in the bucket: ceil((us - now_us + num / limit) * limit / window_us)
          local a = us - now_us
          local q, r = a * limit, nil
          if q < 2 ^ 53 then q = floor(q / window_us); r = a * limit - q * window_us else q, r = mul_div(a, limit, window_us) end
          before = q + ceil((r + num) / window_us)
        end
      end
      -- the TAT moves by cost * window_us / limit µs, kept as whole µs and num / limit
      local inc_q, inc_r = cost * window_us, nil
      if inc_q < 2 ^ 53 then inc_q = floor(inc_q / limit); inc_r = cost * window_us - inc_q * limit else inc_q, inc_r = mul_div(cost, window_us, limit) end
      num = num + inc_r
      us = us + inc_q
      if num >= limit then us, num = us + 1, num - limit end   -- (num + inc_r < 2 * limit)
      local ahead = us - now_us
      if ahead > window_us or (ahead == window_us and num > 0) then break end
      local q, r = ahead * limit, nil
      if q < 2 ^ 53 then q = floor(q / window_us); r = ahead * limit - q * window_us else q, r = mul_div(ahead, limit, window_us) end
      local after = q + ceil((r + num) / window_us)
      if warn > 0 and before <= warn and after > warn then break end   -- crossing the warn level: an audit entry
      local reset_ms = ceil((ahead + (num > 0 and 1 or 0)) / 1000)
      -- SET is the only write, so it is checked by running it: refused, it writes nothing
      local tat = num > 0 and string.format('%d+%d/%d', us, num, limit) or string.format('%d', us)
      if redis.pcall('SET', key, tat, 'PX', reset_ms + 1).err then break end
      return { 1, (warn > 0 and after > warn) and 'warn' or 'ok', after, limit, limit - after, reset_ms, 0 }
    until true
  elseif plain and alg == 'sliding_window' then
    repeat
      -- Sliding window counter: TIME, HMGET (+ PTTL when it holds counts), HSET, PEXPIRE. It reads
      -- only counts spelled as this script writes them (digits, below 2^50, no leading 0; a start
      -- or cur of 0, which it never writes, goes the general way), so within one window HSET writes
      -- cur alone: start and prev already hold what the general path would write.
      local W = window + 0
      local t = redis.call('TIME')
      now_us = t[1] * 1000000 + t[2]
      now_ms = floor(now_us / 1000)
      local ws = floor(now_ms / W) * W
      local h = redis.pcall('HMGET', key, 'start', 'cur', 'prev')
      if h.err then break end
      local start_s, cur_s, prev_s = h[1], h[2], h[3]
      local start, cur, prev = ws, 0, 0
      if start_s or cur_s or prev_s then
        local fields = start_s and cur_s and prev_s and #start_s < 16 and #cur_s < 16 and #prev_s < 16
          and start_s .. ',' .. cur_s .. ',' .. (prev_s == '0' and '1' or prev_s)
        if not fields or not fields:find('^[1-9]%d*,[1-9]%d*,[1-9]%d*$') or redis.call('PTTL', key) == 0 then
          break
        end
        start, cur, prev = start_s + 0, cur_s + 0, prev_s == '0' and 0 or prev_s + 0
        if start < ws then                              -- (a start ahead of ws: a clock step back, kept)
          prev, prev_s = 0, '0'                         -- two or more windows passed
          if start == ws - W then prev, prev_s = cur, cur_s end   -- one: cur becomes prev
          start, start_s, cur = ws, nil, 0
        end
      end
      local elapsed = now_ms - ws
      local weighed = prev * (W - elapsed)            -- floor(prev * (W - elapsed) / W)
      weighed = weighed < 2 ^ 53 and floor(weighed / W) or mul_div(prev, W - elapsed, W)
      local before = weighed + cur
      if before + cost > limit then break end
      local after = before + cost
      if warn > 0 and before <= warn and after > warn then break end   -- crossing the warn level: an audit entry
      cur = cur + cost
      local format = string.format
      local ttl = format('%d', 2 * W)
      if start_s then
        -- Within one window each write is checked by running it (refused, it writes nothing;
        -- cheaper than asking first): a refused PEXPIRE has HSET put cur's old digits back, so the
        -- hash is as it was (as the fixed window's INCRBY -cost does).
        if type(redis.pcall('HSET', key, 'cur', format('%d', cur))) ~= 'number' then break end
        if type(redis.pcall('PEXPIRE', key, ttl)) ~= 'number' then
          redis.call('HSET', key, 'cur', cur_s)
          break
        end
      else
        -- A new window writes three fields, on a hash that may not exist yet (undone only by a
        -- DEL the ACL user may not run): PEXPIRE is asked about first.
        if not redis.acl_check_cmd('PEXPIRE', key, ttl)
          or type(redis.pcall('HSET', key, 'start', format('%d', start), 'cur', format('%d', cur), 'prev', prev_s or '0')) ~= 'number' then
          break
        end
        redis.call('PEXPIRE', key, ttl)
      end
      return { 1, (warn > 0 and after > warn) and 'warn' or 'ok', after, limit, limit - after, 2 * W - elapsed, 0 }
    until true
  elseif plain and alg == 'sliding_log' then
    repeat
      -- Sliding log: TIME, the newest member, PTTL, ZCOUNT from now, the base member (the newest
      -- at or before the window's start), then the trim of older members, one ZADD and PEXPIRE.
      -- The new member is scored now: a log holding a member scored now or later (the clock stepped
      -- back) goes the general way, so the newest member's score is not read (~6k instructions).
      local t = redis.call('TIME')
      now_us = t[1] * 1000000 + t[2]
      now_ms = floor(now_us / 1000)
      local window_us = window * 1000
      local format = string.format
      local at = format('%d', now_us)
      local count, newest_total, trim, stale = 0, 0, nil, false
      local newest = redis.pcall('ZRANGE', key, '-1', '-1')
      if newest.err then break end
      local exists = newest[1]
      if exists then
        -- (members of the old "<us>-<seq>" format or of no format: the general path)
        if not exists:find('^%d+$') or redis.call('PTTL', key) == 0 then break end
        if redis.pcall('ZCOUNT', key, at, '+inf') ~= 0 then break end   -- (one scored now too: rare)
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
      if after > limit then break end
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
  end

  -- The general path's clock, read once and only when the decision needs it (a fixed window from the
  -- first hit does not, unless a ban is involved).
  function clock()
    if not now_us then
      local t = redis.call('TIME')
      now_us = t[1] * 1000000 + t[2]                  -- (digits: arithmetic reads them)
      now_ms = floor(now_us / 1000)
    end
    return now_ms
  end

  function to_int(s)
    return type(s) == 'string' and #s <= 17 and s:find('^%-?%d+$') and s + 0 or nil
  end
end

---------------------------------------------------------------- general path
-- Closures only for the algorithm in use, numbers passed as they are, no TYPE unless a read fails.

-- The short form is read as the full form it stands for: main() replaces these two first.
local KEYS, ARGV = KEYS, ARGV
local short = #ARGV == 2 * #KEYS - 3 or (#ARGV == 2 * #KEYS - 2 and ARGV[#ARGV] == 'override')
local SCRIPT, MODE_A, MODE_B, MODE_C = 'hit', 'hit', 'peek', 'shadow'   -- for hit/arguments.lua (refund.lua has its own)
if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

-- Every check raises a "TG_..." string; the guard at the bottom turns it into an error reply.
local function fail(code, msg) error(code .. ' ' .. msg, 0) end

local function int(x) return string.format('%d', x) end

local function arg_int(i, name, lo, hi)
  local v = to_int(ARGV[i])
  if v == nil or v < lo or v > hi then
    fail('TG_INVALID', string.format('%s must be an integer in [%s, %s], got "%s"',
      name, int(lo), int(hi), tostring(ARGV[i]):sub(1, 40)))
  end
  return v
end

-- A stored integer field: absent stays nil, anything but a non-negative integer is corruption.
local function stored_int(key, what, s)
  if not s then return nil end
  local v = to_int(s)
  if v == nil or v < 0 then
    fail('TG_CORRUPT', string.format('key %s holds %s "%s", expected a non-negative integer', key, what, s:sub(1, 40)))
  end
  return v
end

-- A key of ours holding another type is named here, before Redis' anonymous WRONGTYPE could be.
local function expect_type(key, wanted, what)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then fail('TG_CORRUPT', string.format('key %s is a %s, expected %s', key, kind, what)) end
end

-- The escaping of lua/README.md "Keys": ASCII letters, digits and - _ . @ + = ! ~ , ; # & $ ( ) ' / < > | ^ ` "
-- stay, so does well-formed UTF-8 (no overlong forms, surrogates or > U+10FFFF); any other byte is %XX.
local NOT_PLAIN = '[^%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]'   -- a byte escaped, or part of UTF-8
local function escape(id)
  if not id:find(NOT_PLAIN) then return id end
  local out, i = {}, 1
  while i <= #id do
    local c, len = id:byte(i), 0
    if c < 0x80 then
      len = string.char(c):find(NOT_PLAIN) and 0 or 1
    else
      len = (c >= 0xC2 and c <= 0xDF) and 2 or (c >= 0xE0 and c <= 0xEF) and 3 or (c >= 0xF0 and c <= 0xF4) and 4 or 0
      local lo = (c == 0xE0 and 0xA0) or (c == 0xF0 and 0x90) or 0x80
      local hi = (c == 0xED and 0x9F) or (c == 0xF4 and 0x8F) or 0xBF
      for k = 1, len - 1 do
        local b = id:byte(i + k)
        if not b or b < (k == 1 and lo or 0x80) or b > (k == 1 and hi or 0xBF) then len = 0 end
      end
    end
    out[#out + 1] = len == 0 and string.format('%%%02X', c) or id:sub(i, i + len - 1)
    i = i + max(len, 1)
  end
  return table.concat(out)
end

-- The short form's keys and arguments as the full form's: no warn, no ban, no channel, windows
-- from the first hit in UTC, and the ids the keys name, unescaped (main() then checks that the
-- keys are exactly what escaping those ids gives, so a non-canonical spelling is refused).
local function full_form(keys, args)
  local n = #keys - 3
  if n < 1 or n > MAX_WINDOWS then
    fail('TG_INVALID', string.format('the short form of hit takes 3 keys (user ban, action ban, overrides) plus one '
      .. 'state key per window (1..%d) and 3 arguments plus 2 per window; the full form 5 keys plus one per window and '
      .. '12 arguments plus 2 per window; got %d keys and %d arguments', MAX_WINDOWS, #keys, #args))
  end
  local prefix, user = keys[1]:match('^([^{]*:){([^{}]*)}:ban$')
  if not prefix then
    fail('TG_INVALID', string.format('KEYS[1] is "%s", expected "<p>:{<user>}:ban"', keys[1]:sub(1, 200)))
  end
  local base = prefix .. '{' .. user .. '}:'
  local action = keys[2]:sub(1, #base) == base and keys[2]:match('^(.+):ban$', #base + 1)
  if not action then
    fail('TG_INVALID', string.format('KEYS[2] is "%s", expected "%s<action>:ban"', keys[2]:sub(1, 200), base:sub(1, 200)))
  end
  local function unescape(id)
    local raw = id:gsub('%%(%x%x)', function(hex) return string.char(tonumber(hex, 16)) end)
    return raw
  end
  local full_keys = { keys[1], keys[2], keys[3], base .. 'audit', '' }
  local full_args = { args[1], args[2], args[3], '0', '0', '0', '', '0', unescape(user), unescape(action), '', 'first_hit' }
  for i = 4, #keys do full_keys[i + 2] = keys[i] end
  for i = 4, #args do full_args[i + 9] = args[i] end
  return full_keys, full_args
end

-- Writes are queued while reading and run at the end, so no error can leave a half-done hit.
-- Numbers go as they are: Redis writes an integer-valued Lua number with all its digits.
local writes = {}
local function later(...) writes[#writes + 1] = { ... } end

-- ARGV[8]: the offset before the first change, then "utc_ms:offset_ms" changes, ascending.
local function parse_offsets(text)
  local base, rest = text:match('^(%-?%d+)(.*)$')
  local zone = { base = to_int(base), changes = {} }
  local ok, last, parsed = zone.base and #rest <= 20000, -2 ^ 53, 0
  for at, off, tail in (ok and rest or ''):gmatch(',(%-?%d+):(%-?%d+)()') do
    local change = { at = to_int(at), off = to_int(off) }
    ok = ok and change.at and change.off and change.at > last and math.abs(change.off) <= MAX_OFFSET_MS
    last, parsed = change.at or last, tail - 1
    zone.changes[#zone.changes + 1] = change
  end
  if not ok or math.abs(zone.base) > MAX_OFFSET_MS or parsed ~= #rest then
    fail('TG_INVALID', 'utc offsets must be "<offset_ms>[,<utc_ms>:<offset_ms>...]" ascending, |offset| <= 18h, got "'
      .. text:sub(1, 40) .. '"')
  end
  return zone
end

-- The first instant after now_ms at which local time reaches the next multiple of unit_ms (of a
-- week: Monday 00:00; 1970-01-01 was a Thursday). Offset changes on the way are followed, so a
-- day is 23 or 25 hours long across a DST change; when a change skips over the boundary, the
-- period ends at the change. zone nil: UTC.
local function local_boundary(zone, now_ms, unit_ms)
  local off, first, changes = zone and zone.base or 0, 1, zone and zone.changes or {}
  while changes[first] and changes[first].at <= now_ms do
    off = changes[first].off
    first = first + 1
  end
  local lt = now_ms + off
  local d = floor(lt / DAY)
  local target = unit_ms + (unit_ms == WEEK and (d - (d + 3) % 7) * DAY or floor(lt / unit_ms) * unit_ms)
  for i = first, #changes do
    local change = changes[i]
    if target - off <= change.at then break end
    if change.at + change.off >= target then return change.at end
    off = change.off
  end
  return target - off
end

local function main()
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
  ---------------------------------------------------------------- algorithms
  -- load(w): from the first read (w.first), set w.count (before this hit), w.fits (this hit would pass this window).
  -- plan(w, counted): compute the state after the hit, queue its writes (and TTL repair), set the
  -- report fields w.count, w.reset_ms, w.retry_ms (when not w.fits; plan_all makes it -1 when
  -- cost > limit). Both only read Redis. Only the functions of the algorithm in use are made.
  -- A key whose PTTL is 0 expires within this very millisecond: it is read as gone.
  local load, plan, expected, read
  if alg == 'fixed_window' then
    expected, read = 'string', { 'GET' }
    function load(w)
      w.count = 0
      if w.ttl > 0 or w.ttl == -1 then w.count = stored_int(w.key, 'counter', w.first) or 0 end
      w.fits = w.count + cost <= w.limit
    end

    function plan(w, counted)
      local fresh = w.ttl == -2 or w.ttl == 0
      -- ms until the window ends: from the first hit, or at the next local calendar boundary
      local boundary = calendar and local_boundary(zone, clock(), w.window_ms)
      local length = boundary and boundary - now_ms or w.window_ms
      -- A calendar counter expires at the boundary itself: a TTL counted from this script's clock
      -- would end a millisecond late whenever the server's clock ticks before the write runs.
      local px, at, pexpire = 'PX', length, 'PEXPIRE'
      if boundary then px, at, pexpire = 'PXAT', boundary, 'PEXPIREAT' end
      w.reset_ms = fresh and 0 or max(w.ttl, 0)
      if counted then
        w.count = min(w.count + cost, MAX_STORED)
        if fresh then later('SET', w.key, w.count, px, at) else later('SET', w.key, w.count, 'KEEPTTL') end
      end
      if w.ttl == -1 then later(pexpire, w.key, at) end          -- a counter that lost its TTL
      if w.ttl == -1 or (counted and fresh) then w.reset_ms = length end
      w.retry_ms = max(w.reset_ms, 1)
    end
  elseif alg == 'sliding_log' then

    -- A zset with one member per allowed hit (and per counted denial that finds no member in the
    -- window to join), scored by its time in µs. The member is the total counted so far (cost
    -- included), zero-padded so rank order is total order even within one µs:
    -- the count in the window is newest total - total of the newest member at or before the cut.
    -- That member (the base) is kept when older ones are trimmed. A hit costs O(log n) whatever
    -- its cost, and totals never collide.
    expected, read = 'zset', { 'ZRANGE', '-1', '-1', 'WITHSCORES' }
    -- Sliding log: a member is the running total, zero-padded so rank order is total order.
    local function sl_member(total) return string.format('%016d', total) end

    local function sl_total(key, member)
      local v = member:find('^%d+$') and tonumber(member)
      if not v then fail('TG_CORRUPT', string.format('key %s holds member "%s", expected a running total', key, member:sub(1, 40))) end
      return v
    end

    function load(w)
      w.cut = now_us - w.window_us                  -- members scored <= cut are out of the window
      w.count, w.newest_total, w.base_total, w.replace = 0, 0, 0, w.ttl == 0
      if w.ttl > 0 or w.ttl == -1 then
        local newest = w.first
        if newest[1] and newest[1]:find('^%d+%-%d+$') then
          w.replace = true                          -- "<us>-<seq>" members of the old format: start over
        elseif newest[1] then
          w.newest_total, w.newest_us = sl_total(w.key, newest[1]), tonumber(newest[2])
          local base = redis.call('ZREVRANGEBYSCORE', w.key, w.cut, '-inf', 'WITHSCORES', 'LIMIT', '0', '1')
          if base[1] then w.base_total, w.base_us = sl_total(w.key, base[1]), tonumber(base[2]) end
          w.count = w.newest_total - w.base_total
        end
      end
      w.fits = w.count + cost <= w.limit
    end

    function plan(w, counted)
      -- the count stays capped at the limit: a denied hit that counts fills the window, no more
      local added = not counted and 0 or w.fits and cost or min(cost, max(w.limit - w.count, 0))
      -- never log before the newest member, so a clock step back cannot reorder members
      local ts = max(now_us, w.newest_us or 0)
      local merged = added > 0 and not w.fits and w.newest_us ~= nil and w.newest_us > w.cut
      local trim = w.base_us and string.format('(%d', w.base_us)
      if added > 0 then
        if w.replace then later('DEL', w.key) end
        if trim then later('ZREMRANGEBYSCORE', w.key, '-inf', trim) end
        -- a denied hit joins the newest member in the window, which moves to now (a member of
        -- its own when there is none): members in the window never outnumber its units
        if merged then later('ZREM', w.key, sl_member(w.newest_total)) end
        later('ZADD', w.key, ts, sl_member(w.newest_total + added))
        w.count = w.count + added
      end
      local newest = added > 0 and ts or w.newest_us
      w.reset_ms = (newest and newest > w.cut) and max(ceil((newest + w.window_us - now_us) / 1000), 1) or 0
      if (added > 0 or w.ttl == -1) and w.reset_ms > 0 then
        if added == 0 and trim then later('ZREMRANGEBYSCORE', w.key, '-inf', trim) end
        later('PEXPIRE', w.key, w.reset_ms)
      elseif w.ttl == -1 then
        later('DEL', w.key)                         -- a log without TTL whose entries all left the window
      end
      if not w.fits then
        -- The hit passes once the base total reaches `need`: when the first member holding it
        -- leaves the window. Totals grow with rank, so a binary search finds it.
        local need = w.newest_total + added + cost - w.limit
        local at = ts
        if need <= w.newest_total then
          local last = redis.call('ZCARD', w.key) - 1
          local lo, hi = 0, last
          while lo < hi do
            local mid = floor((lo + hi) / 2)
            if sl_total(w.key, redis.call('ZRANGE', w.key, mid, mid)[1]) >= need then hi = mid else lo = mid + 1 end
          end
          -- (when that is the newest member and this hit joins it, it moves to ts)
          at = (merged and lo == last) and ts or tonumber(redis.call('ZRANGE', w.key, lo, lo, 'WITHSCORES')[2])
        end
        w.retry_ms = max(ceil((at + w.window_us - now_us) / 1000), 1)
      end
    end
  elseif alg == 'sliding_window' then
    -- A hash {start, cur, prev}: counts of the aligned window starting at `start` and of the one before.
    -- The estimate weighs prev by the part of the previous window still inside the sliding window:
    -- floor(prev * (W - elapsed) / W) + cur. All time math is relative to the window start (ms
    -- since ws), so nothing rounds in epoch terms.
    expected, read = 'hash', { 'HMGET', 'start', 'cur', 'prev' }
    -- Sliding window: those counts seen from the aligned window that starts at ws.
    local function sw_roll(ws, W, start, cur, prev)
      if start >= ws then return start, cur, prev end     -- current window (or a clock step back: keep it)
      if start == ws - W then return ws, 0, cur end       -- one window passed
      return ws, 0, 0                                     -- two or more passed
    end

    -- The first elapsed ms e in [0, W] at which floor(count * (W - e) / W) <= allowed:
    -- floor(count * (W - e) / W) <= allowed  <=>  W - e < (allowed + 1) * W / count
    local function first_fit(W, count, allowed)
      if count <= allowed then return 0 end
      local q, r = mul_div(allowed + 1, W, count)
      return max(W + 1 - (r > 0 and q + 1 or q), 0)
    end

    -- the hash's start, cur, prev as numbers (counts capped at MAX_STORED), or nil when one is
    -- not a non-negative integer
    local function sw_fields(h)
      local start, cur, prev = to_int(h[1]), to_int(h[2]), to_int(h[3])
      if start and cur and prev and start >= 0 and cur >= 0 and prev >= 0 then
        return start, min(cur, MAX_STORED), min(prev, MAX_STORED)
      end
    end

    function load(w)
      w.ws = floor(now_ms / w.window_ms) * w.window_ms
      w.start, w.cur, w.prev = w.ws, 0, 0
      if w.ttl > 0 or w.ttl == -1 then
        local h = w.first
        if h[1] or h[2] or h[3] then
          local start, cur, prev = sw_fields(h)
          if not start then                           -- name the first field that is not a count
            for i, field in ipairs({ 'start', 'cur', 'prev' }) do stored_int(w.key, field, h[i] or 'missing') end
          end
          w.start, w.cur, w.prev = sw_roll(w.ws, w.window_ms, start, cur, prev)
        end
      end
      w.elapsed = now_ms - w.ws
      w.count = mul_div(w.prev, w.window_ms - w.elapsed, w.window_ms) + w.cur
      w.fits = w.count + cost <= w.limit
    end

    function plan(w, counted)
      local W = w.window_ms
      local cur, prev = min(w.cur + (counted and cost or 0), MAX_STORED), w.prev
      if counted then later('HSET', w.key, 'start', w.start, 'cur', cur, 'prev', prev) end
      if counted or w.ttl == -1 then later('PEXPIRE', w.key, 2 * W) end
      w.count = mul_div(prev, W - w.elapsed, W) + cur
      w.reset_ms = cur > 0 and 2 * W - w.elapsed or prev > 0 and W - w.elapsed or 0
      if not w.fits then
        local room = w.limit - cost - cur                -- what prev may still weigh in this window
        local e = room >= 0 and first_fit(W, prev, room) or W
        if e >= W then e = W + first_fit(W, cur, w.limit - cost) end   -- next window: cur becomes prev
        w.retry_ms = max(e - w.elapsed, 1)
      end
    end
  else
    -- GCRA: the string holds the theoretical arrival time (TAT) in µs, "<us>" or "<us>+<num>/<den>"
    -- with the exact fraction of a µs. Each unit of cost moves it by window_us / limit µs, kept as
    -- whole µs plus a remainder in 1/limit µs, so no rounding adds up (600k per second stays 600k).
    -- A hit passes if the TAT stays within one window of now.
    -- µs from now to the TAT, rounded up: us - now_us + (num > 0 and 1 or 0).
    expected, read = 'string', { 'GET' }
    -- GCRA: the TAT "<us>" or "<us>+<num>/<den>" (num < den) as us, num, den; nil when it is neither.
    local function parse_tat(s)
      local a, b, c = s:match('^(%d+)%+(%d+)/(%d+)$')
      if not a then return to_int(s), 0, 1 end
      local us, n, d = #a <= 17 and a + 0, #b <= 17 and b + 0, #c <= 17 and c + 0
      if us and n and d and d >= 1 and n < d then return us, n, d end
    end

    -- GCRA: the TAT us + num/limit µs moved by q + r/limit µs.
    local function tb_after(us, num, q, r, limit)
      local total = num + r
      return us + q + floor(total / limit), total % limit
    end

    -- GCRA: units in a bucket whose TAT is us + num/limit µs, ceil((TAT - now) * limit / window_us).
    local function tb_used(us, num, limit, window_us)
      local q, r = mul_div(us - now_us, limit, window_us)
      return q + ceil((r + num) / window_us)
    end

    local function after(w, us, num) return tb_after(us, num, w.inc_q, w.inc_r, w.limit) end
    local function used(w, us, num) return tb_used(us, num, w.limit, w.window_us) end

    function load(w)
      local s = (w.ttl > 0 or w.ttl == -1) and w.first or nil
      local us, num = now_us, 0
      if s then
        local stored, n, d = parse_tat(s)
        if not stored then
          fail('TG_CORRUPT', string.format('key %s holds TAT "%s", expected "<us>" or "<us>+<num>/<den>"', w.key, s:sub(1, 40)))
        end
        if stored > now_us or (stored == now_us and n > 0) then
          us, num = stored, (d == w.limit) and n or mul_div(n, w.limit, d)
        end
      end
      w.tat_us, w.tat_num = us, num
      w.inc_q, w.inc_r = mul_div(cost, w.window_us, w.limit)
      w.count = used(w, us, num)
      local next_us, next_num = after(w, us, num)
      local ahead = next_us - now_us
      w.fits = ahead < w.window_us or (ahead == w.window_us and next_num == 0)
    end

    function plan(w, counted)
      local us, num = w.tat_us, w.tat_num
      if counted then
        us, num = after(w, us, num)
        if not w.fits and us - now_us + (num > 0 and 1 or 0) > w.window_us then
          us, num = now_us + w.window_us, 0             -- denied hits fill the bucket, no more
        end
      end
      w.reset_ms = ceil((us - now_us + (num > 0 and 1 or 0)) / 1000)
      if counted then
        later('SET', w.key, num > 0 and string.format('%d+%d/%d', us, num, w.limit) or us, 'PX', w.reset_ms + 1)
      end
      if w.ttl == -1 and not counted then later('PEXPIRE', w.key, w.reset_ms + 1) end
      w.count = used(w, us, num)
      if not w.fits then
        local next_us, next_num = after(w, us, num)
        w.retry_ms = max(ceil((next_us - now_us + (next_num > 0 and 1 or 0) - w.window_us) / 1000), 1)
      end
    end
  end

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
    expect_type(KEYS[3], 'hash', 'an overrides hash')
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

  -- One read per window; a wrong type fails it, and only then does TYPE name the key, in the
  -- order of the windows, before any value is judged (as a TYPE per window did).
  -- The TTLs are taken against the clock once it is read (every algorithm but a fixed window
  -- from the first hit; a ban in force has read it): a ban's end and each window's then come
  -- from one reading, so a window ending with the ban reports exactly the ban's retry (a PTTL is
  -- the server's clock of that very command). A ban this hit creates needs no earlier reading:
  -- a window that ends with it reports the ban's own ms left (end_windows_at's min), as its
  -- PTTL, read before the clock, is at least that.
  for _, w in ipairs(windows) do
    if now_ms then
      local at = redis.call('PEXPIRETIME', w.key)
      w.ttl = at < 0 and at or max(at - now_ms, 0)
    else
      w.ttl = redis.call('PTTL', w.key)
    end
    if w.ttl == 0 then
      expect_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
    elseif w.ttl ~= -2 then
      local first = redis.pcall(read[1], w.key, unpack(read, 2))
      if type(first) == 'table' and first.err then
        expect_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
        error(first, 0)
      end
      w.first = first
    end
  end
  for _, w in ipairs(windows) do load(w) end

  -- A peek also reports the window as it stands, before the hit it weighs (reply [10], [11]):
  -- a hit that does not fit may count less than its cost (a log or a bucket holds at most the
  -- limit), so a client cannot take the cost back out of the count after it.
  local function plan_all(counted)
    for _, w in ipairs(windows) do
      if mode == 'peek' then
        plan(w, false)
        w.count_now, w.reset_now = w.count, w.reset_ms
      end
      plan(w, counted)
      if not w.fits and cost > w.limit then w.retry_ms = -1 end   -- never: it can never fit
    end
  end

  -- The end of a ban is a fresh start: no window of this action outlives it, so none reports a
  -- reset later than the ban's end (left: ms from now until then). reported_only: the reply
  -- says so, the keys keep their expiry (a would-be ban: a shadow hit's, a peek's); a peek's
  -- window as it stands ends with a ban in force only.
  local function end_windows_at(until_ms, left, reported_only)
    for _, w in ipairs(windows) do
      if not reported_only then
        later('PEXPIREAT', w.key, until_ms, 'LT')
        if w.reset_now then w.reset_now = min(w.reset_now, left) end
      end
      w.reset_ms = min(w.reset_ms, left)
    end
  end

  -- A shadow hit is decided and counted as an enforced one, but always allowed and never bans:
  -- its reply says what enforcing would have answered, plus [8] the override that decided ("" for
  -- none) and [9] 1, or 2 when enforcing would have written the policy's automatic ban (auto_ban.lua).
  local shadow, would_ban = mode == 'shadow', false
  local function reply(w, allowed, tier, retry)
    local r = { allowed and 1 or 0, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry }
    if shadow then r[1] = 1 end
    -- [8] the override that decided, [9] shadow: only when either applies (the common reply stays
    -- 7 long); a peek's has both and [10], [11]: count and reset_ms of that window before the hit
    if shadow or applied ~= '' or mode == 'peek' then r[8], r[9] = applied, shadow and (would_ban and 2 or 1) or 0 end
    if mode == 'peek' then r[10], r[11] = w.count_now, w.reset_now end
    return r
  end

  local function smallest_remaining()
    local best = windows[1]
    for _, w in ipairs(windows) do
      if w.limit - w.count < best.limit - best.count then best = w end
    end
    return best
  end

  if banned then
    -- Nothing counts during a ban (not even with count_denied); the reply's retry is the ban's end.
    plan_all(false)
    if banned > 0 then end_windows_at(ban_end, banned) end
    return reply(smallest_remaining(), false, 'banned', banned)
  end

  ---------------------------------------------------------------- decision
  local allowed = true
  for _, w in ipairs(windows) do allowed = allowed and w.fits end
  local counted = allowed or count_denied or exempt
  local first_before = windows[1].count
  plan_all(counted)

-- The event (lua/README.md, "Events") queued into the write plan when a channel is given:
-- "<event>\n<byte length of user>\n<user><action>", the length keeping ids with newlines apart.
local function publish(writes, channel, event, user, action)
  if channel ~= '' then
    writes[#writes + 1] = { 'PUBLISH', channel, event .. '\n' .. #user .. '\n' .. user .. action }
  end
end
-- The audit writer (lua/README.md, "Global audit stream"): an entry { field, value, ... } queued
-- into the write plan. A global stream that is "" or the call's own key (`besides`) is off.
local function audit_global(writes, global, entry, besides)
  if global ~= '' and global ~= besides then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', int(GLOBAL_AUDIT_LEN), '*', unpack(entry) }
  end
end

-- The user's stream (MAXLEN ~ 1000, expiring 90 days after its last entry) and the global one.
local function audit(writes, user_stream, global, entry)
  writes[#writes + 1] = { 'XADD', user_stream, 'MAXLEN', '~', '1000', '*', unpack(entry) }
  writes[#writes + 1] = { 'PEXPIRE', user_stream, int(AUDIT_TTL_MS) }
  audit_global(writes, global, entry, user_stream)
end
-- A ban hash (lua/README.md, "Keys") queued into the write plan: it replaces any ban on that key,
-- TTL included, and expires at until_ms (0 = permanent, no TTL). action "" = every action.
local function ban_writes(writes, key, action, reason, actor, source, created_ms, until_ms)
  writes[#writes + 1] = { 'DEL', key }
  writes[#writes + 1] = { 'HSET', key, 'reason', reason, 'actor', actor, 'created_ms', created_ms,
    'until_ms', until_ms, 'scope', action == '' and 'user' or 'action', 'action', action, 'source', source }
  if until_ms > 0 then writes[#writes + 1] = { 'PEXPIREAT', key, until_ms } end
end

  -- An entry by the actor ("tollgate" unless given) in the user's stream and, when global, in
  -- KEYS[5] too (the stream the console follows, unless it is off), each stream checked like
  -- every key of ours.
  local function audit_hit(event, reason, until_ms, global, actor)
    expect_type(KEYS[4], 'stream', 'an audit stream')
    global = global and KEYS[5] or ''
    if global ~= '' and global ~= KEYS[4] then expect_type(global, 'stream', 'an audit stream') end
    audit(writes, KEYS[4], global, { 'event', event, 'user', user, 'action', action, 'actor', actor or 'tollgate',
      'reason', reason, 'until_ms', until_ms })
  end

  -- The policy's ban (ban_ms, ban_until) written as an automatic one: the action's ban hash, an
  -- "auto_ban" audit entry in both streams and the event, all queued; the windows end with it.
  -- Returns the ban's end in epoch ms. A shadow hit writes none of it: the windows go on
  -- counting, and only the reply is what the ban would have made it.
  local function auto_ban(reason, actor)
    local until_ms = clock() + ban_ms
    if ban_until == 'midnight' then until_ms = max(until_ms, local_boundary(zone, now_ms, DAY)) end
    if shadow then
      would_ban = true
      end_windows_at(until_ms, until_ms - now_ms, true)
      return until_ms
    end
    expect_type(KEYS[2], 'hash', 'a ban hash')
    ban_writes(writes, KEYS[2], action, reason, actor, 'auto', now_ms, until_ms)
    audit_hit('auto_ban', reason, until_ms, true, actor)
    publish(writes, channel, 'ban', user, action)
    end_windows_at(until_ms, until_ms - now_ms, mode == 'peek')   -- (a peek writes none of it)
    return until_ms
  end
  if allowed or exempt then                        -- an exempt user is never denied
    local first = windows[1]
    local tier = (warn > 0 and first.count > warn) and 'warn' or 'ok'
    if warn > 0 and first_before <= warn and first.count > warn then
      audit_hit('warn', string.format('count %d > warn %d', first.count, warn), 0)
    end
    return reply(smallest_remaining(), true, tier, 0)
  end

  local binding
  for _, w in ipairs(windows) do
    if not w.fits and (binding == nil or longer(w.retry_ms, binding.retry_ms) ~= binding.retry_ms) then
      binding = w
    end
  end
  local retry = binding.retry_ms

  if ban_ms > 0 or ban_until == 'midnight' then
    local until_ms = auto_ban(string.format('limit exceeded: %d/%d per %d ms',
      binding.count + (counted and 0 or cost), binding.limit, binding.window_ms), 'tollgate')
    -- the windows end with the ban, so the ban's end is exactly when a hit passes again (a hit
    -- whose cost exceeds a limit never passes: -1 stays)
    if retry ~= -1 then retry = until_ms - now_ms end
  end
  return reply(binding, false, 'deny', retry)
end

local ok, result = pcall(main)
if not ok then
  -- ours ("TG_...") or Redis' own ("WRONGTYPE ...") go back as they are; a Lua fault is raised
  if type(result) == 'string' and result:find('^[%u_]+ ') then return redis.error_reply(result) end
  error(result, 0)
end
-- The write plan: a script queues every write as { command, key, ... } while it reads, then
-- applies them all only when this ACL user may run each one, or none (TG_NOPERM, nothing
-- written). Never a change without its audit entry.
local function apply(writes)
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
        '; nothing was written')
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end
if ARGV[1] ~= 'peek' then
  -- Every queued write must be allowed to this ACL user before the first one runs: a ban is
  -- never left without its audit entries, nor a counter half-updated.
  local refused = apply(writes)
  if refused then return refused end
end
return result
