-- REFERENCE ONLY, never loaded by Tollgate: a frozen copy of lua/hit.lua as it was before the
-- fast path of issue 8 (main at 3d9065f), with the behaviour changes made since applied to it
-- (tests/reference/README.md): a ban cuts reset_ms and ends the windows at its own expiry; a
-- calendar counter expires at its boundary (PXAT); a wrong mode's message names mode "shadow"
-- too; a peek's reply has 11 elements, [10] and [11] the count and reset_ms of its window before
-- the hit; a ban's ms left and every window's TTL are its PEXPIRETIME against the one clock
-- reading. tst_HitDifferential runs it side by side with
-- lua/hit.lua on random sequences; every reply and every resulting key must agree. Do not edit
-- it to make that test pass: a difference is a change of behaviour in lua/hit.lua.
--[[ hit.lua: count one hit of an action (mode "hit") or report what a hit would get ("peek").

KEYS[1]          user-wide ban hash        <p>:{<user>}:ban
KEYS[2]          action ban hash           <p>:{<user>}:<action>:ban
KEYS[3]          user audit stream         <p>:{<user>}:audit
KEYS[4]          global audit stream       <p>:audit  ("" or KEYS[3] again = no global mirror, e.g. on a Cluster)
KEYS[5..4+n]     one state key per window  <p>:{<user>}:<action>:<fw|sl|sw|tb>:<window_ms>   (1 <= n <= 8)
                 Every key must be exactly the one lua/README.md builds from ARGV[9], ARGV[10].

ARGV[1]          mode: "hit" | "peek"  (peek writes nothing at all, not even repairs)
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
                 order of KEYS[5..]

Reply: { allowed 1|0, tier "ok"|"warn"|"deny"|"banned", count, limit, remaining, reset_ms, retry_after_ms }
  count, limit, remaining and reset_ms are those of the binding window: when denied, the denying window
  with the longest retry_after; otherwise (and when banned) the window with the smallest remaining.
  reset_ms: ms until that window holds nothing any more (0 if it holds nothing).
  retry_after_ms: 0 when allowed; when denied, ms until a hit of this cost could pass; when a ban is
  in force or was just created, exactly the ms until it ends (-1 = never: permanent ban, cost > limit).
  The end of a ban is a fresh start: every window of the action that was counting when the user
  ran into the ban expires with the ban (PEXPIREAT ... LT).
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key of ours holds a value of the wrong shape),
  TG_NOPERM (the ACL user may not run one of the writes this hit needs: nothing is written).
An automatic ban writes the ban, the user's audit entry and the global one together, or nothing.
Several windows are all-or-nothing: a hit counts in every window or in none (unless count_denied).
]]

local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local FIXED_KEYS = 4            -- KEYS before the state keys
local FIXED_ARGS = 12           -- ARGV before the limit/window pairs
local MAX_WINDOWS = 8
local MAX_ID = 1024
local MAX_WINDOW_MS = 31536000000
local MAX_COUNT = 1000000000
local MAX_STORED = 2 ^ 50       -- counters saturate here, so every product below stays exact
local MAX_LOG = 100000          -- a sliding log keeps at most one zset member per allowed hit
local MAX_BAN_MS = 3153600000000
local MAX_OFFSET_MS = 64800000
local AUDIT_TTL_MS = 7776000000 -- a user's audit stream expires 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000
local MINUTE, HOUR, DAY, WEEK = 60000, 3600000, 86400000, 604800000

local function int(x) return string.format('%d', x) end

-- Every check raises a "TG_..." string; the guard at the bottom turns it into an error reply.
local function fail(code, msg) error(code .. ' ' .. msg, 0) end

local function to_int(s)
  return type(s) == 'string' and #s <= 17 and s:match('^%-?%d+$') and tonumber(s) or nil
end

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

-- floor(a * b / c) and the remainder, exact for integers 0 <= a, b, c < 2^50 whose quotient stays
-- below 2^53 (a double holds integers exactly only up to 2^53, and a * b may be far above it).
local function mul_div(a, b, c)
  if a * b < 2 ^ 53 then
    local q = floor(a * b / c)
    return q, a * b - q * c
  end
  local q1 = floor(a / c)
  local r1 = a - q1 * c                  -- a * b / c = q1 * b + r1 * b / c, with r1 < c
  local q, r, bit = 0, 0, 2 ^ 52         -- r1 * (the high bits of b so far) = q * c + r
  while bit >= 1 do
    q, r = q * 2, r * 2
    if r >= c then q, r = q + 1, r - c end
    if floor(b / bit) % 2 == 1 then r = r + r1 end
    if r >= c then q, r = q + 1, r - c end
    bit = bit / 2
  end
  return q1 * b + q, r
end

local function ceil_mul_div(a, b, c)
  local q, r = mul_div(a, b, c)
  return r > 0 and q + 1 or q
end

-- The escaping of lua/README.md "Keys": ASCII letters, digits and - _ . @ + = ! ~ , ; # & $ ( ) ' / < > | ^ ` "
-- stay, so does well-formed UTF-8 (no overlong forms, surrogates or > U+10FFFF); any other byte is %XX.
local PLAIN = '[%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]'
local function escape(id)
  if not id:find('[^' .. PLAIN:sub(2)) then return id end
  local out, i = {}, 1
  while i <= #id do
    local c, len = id:byte(i), 0
    if c < 0x80 then
      len = string.char(c):find(PLAIN) and 1 or 0
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

-- Writes are queued while reading and run at the end, so no error can leave a half-done hit.
local writes = {}
local function later(...)
  local cmd = {...}
  for i, v in ipairs(cmd) do cmd[i] = type(v) == 'number' and int(v) or v end
  writes[#writes + 1] = cmd
end

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
-- period ends at the change.
local function local_boundary(zone, now_ms, unit_ms)
  local off, first = zone.base, 1
  while zone.changes[first] and zone.changes[first].at <= now_ms do
    off = zone.changes[first].off
    first = first + 1
  end
  local lt = now_ms + off
  local d = floor(lt / DAY)
  local target = unit_ms + (unit_ms == WEEK and (d - (d + 3) % 7) * DAY or floor(lt / unit_ms) * unit_ms)
  for i = first, #zone.changes do
    local change = zone.changes[i]
    if target - off <= change.at then break end
    if change.at + change.off >= target then return change.at end
    off = change.off
  end
  return target - off
end

local function main()
  ---------------------------------------------------------------- arguments
  local n = #KEYS - FIXED_KEYS
  if n < 1 then
    fail('TG_INVALID', string.format('hit needs %d keys (user ban, action ban, user audit, global audit) plus one state key per window, got %d',
      FIXED_KEYS + 1, #KEYS))
  end
  if n > MAX_WINDOWS then fail('TG_INVALID', string.format('at most %d windows, got %d', MAX_WINDOWS, n)) end
  if #ARGV ~= FIXED_ARGS + 2 * n then
    fail('TG_INVALID', string.format('hit with %d windows needs %d arguments, got %d', n, FIXED_ARGS + 2 * n, #ARGV))
  end
  local mode, alg = ARGV[1], ARGV[2]
  -- (mode "shadow" is lua/hit.lua's own: tst_ShadowDifferential compares it with "hit" here)
  if mode ~= 'hit' and mode ~= 'peek' then fail('TG_INVALID', 'mode must be hit, peek or shadow') end
  local code = ({ fixed_window = 'fw', sliding_log = 'sl', sliding_window = 'sw', token_bucket = 'tb' })[alg]
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
  local zone = parse_offsets(ARGV[8])
  local user, action, channel, align = ARGV[9], ARGV[10], ARGV[11], ARGV[12]
  for what, id in pairs({ user = user, action = action }) do
    if #id < 1 or #id > MAX_ID then fail('TG_INVALID', string.format('%s id must be 1..%d bytes, got %d', what, MAX_ID, #id)) end
  end
  if align ~= 'first_hit' and align ~= 'calendar' then fail('TG_INVALID', 'align must be first_hit or calendar') end
  local calendar = align == 'calendar'
  if calendar and alg ~= 'fixed_window' then fail('TG_INVALID', 'calendar windows need fixed_window') end

  -- The keys must be the ones the escaping rules give, or two clients would count apart.
  local user_tag = '{' .. escape(user) .. '}'
  local prefix = KEYS[1]:match('^([^{]*:){') or ''           -- "<p>:" (a prefix holds no brace)
  local base = prefix .. user_tag
  local action_base = base .. ':' .. escape(action)
  local function expect_key(i, wanted)
    if KEYS[i] ~= wanted or #prefix < 2 or prefix:sub(-1) ~= ':' then
      fail('TG_INVALID', string.format('KEYS[%d] is "%s", expected "%s" (ids escaped as in lua/README.md)',
        i, KEYS[i]:sub(1, 200), wanted:sub(1, 200)))
    end
  end
  expect_key(1, base .. ':ban')
  expect_key(2, action_base .. ':ban')
  expect_key(3, base .. ':audit')
  if KEYS[4] ~= '' and KEYS[4] ~= KEYS[3] then expect_key(4, prefix .. 'audit') end

  local windows, seen = {}, {}
  for i = 1, n do
    local w = { key = KEYS[FIXED_KEYS + i] }
    w.limit = arg_int(FIXED_ARGS - 1 + 2 * i, 'limit', 1, alg == 'sliding_log' and MAX_LOG or MAX_COUNT)
    w.window_ms = arg_int(FIXED_ARGS + 2 * i, 'window_ms', 1, MAX_WINDOW_MS)
    w.window_us = w.window_ms * 1000
    if seen[w.window_ms] then fail('TG_INVALID', 'window_ms ' .. int(w.window_ms) .. ' appears twice') end
    seen[w.window_ms] = true
    if alg == 'token_bucket' and w.limit > w.window_us then
      fail('TG_INVALID', 'token_bucket needs limit <= window_ms * 1000 (one token per microsecond at most)')
    end
    if calendar and w.window_ms ~= MINUTE and w.window_ms ~= HOUR and w.window_ms ~= DAY and w.window_ms ~= WEEK then
      fail('TG_INVALID', 'calendar windows are 60000, 3600000, 86400000 or 604800000 ms, got ' .. int(w.window_ms))
    end
    expect_key(FIXED_KEYS + i, action_base .. ':' .. code .. ':' .. int(w.window_ms))
    windows[i] = w
  end

  local t = redis.call('TIME')
  local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local now_ms = floor(now_us / 1000)

  ---------------------------------------------------------------- algorithms
  -- load(w): read the state, set w.count (before this hit), w.fits (this hit would pass this window).
  -- plan(w, counted): compute the state after the hit, queue its writes (and TTL repair), set the
  -- report fields w.count, w.reset_ms, w.retry_ms (when not w.fits; plan_all makes it -1 when
  -- cost > limit). Both only read Redis.
  -- A key whose PTTL is 0 expires within this very millisecond: it is read as gone.
  local fixed_window, sliding_log, sliding_window, token_bucket = {}, {}, {}, {}

  function fixed_window.load(w)
    w.count = 0
    if w.ttl > 0 or w.ttl == -1 then w.count = stored_int(w.key, 'counter', redis.call('GET', w.key)) or 0 end
    w.fits = w.count + cost <= w.limit
  end

  function fixed_window.plan(w, counted)
    local fresh = w.ttl == -2 or w.ttl == 0
    -- ms until the window ends: from the first hit, or at the next local calendar boundary
    local length = calendar and local_boundary(zone, now_ms, w.window_ms) - now_ms or w.window_ms
    w.reset_ms = fresh and 0 or max(w.ttl, 0)
    if counted then
      w.count = min(w.count + cost, MAX_STORED)
      if fresh and calendar then later('SET', w.key, w.count, 'PXAT', now_ms + length)  -- the boundary itself
      elseif fresh then later('SET', w.key, w.count, 'PX', length)
      else later('SET', w.key, w.count, 'KEEPTTL') end
    end
    if w.ttl == -1 and calendar then later('PEXPIREAT', w.key, now_ms + length)      -- a counter that lost its TTL
    elseif w.ttl == -1 then later('PEXPIRE', w.key, length) end
    if w.ttl == -1 or (counted and fresh) then w.reset_ms = length end
    w.retry_ms = max(w.reset_ms, 1)
  end

  -- A zset with one member per allowed hit, scored by its time in µs. The member is the total
  -- counted so far (cost included), zero-padded so rank order is total order even within one µs:
  -- the count in the window is newest total - total of the newest member at or before the cut.
  -- That member (the base) is kept when older ones are trimmed. A hit costs O(log n) whatever
  -- its cost, and totals never collide.
  local function sl_member(total) return string.format('%016d', total) end
  local function sl_total(key, member)
    local v = member:match('^%d+$') and tonumber(member)
    if not v then fail('TG_CORRUPT', string.format('key %s holds member "%s", expected a running total', key, member:sub(1, 40))) end
    return v
  end

  function sliding_log.load(w)
    w.cut = now_us - w.window_us                  -- members scored <= cut are out of the window
    w.count, w.newest_total, w.base_total, w.replace = 0, 0, 0, w.ttl == 0
    if w.ttl > 0 or w.ttl == -1 then
      local newest = redis.call('ZRANGE', w.key, -1, -1, 'WITHSCORES')
      if newest[1] and newest[1]:match('^%d+%-%d+$') then
        w.replace = true                          -- "<us>-<seq>" members of the old format: start over
      elseif newest[1] then
        w.newest_total, w.newest_us = sl_total(w.key, newest[1]), tonumber(newest[2])
        local base = redis.call('ZREVRANGEBYSCORE', w.key, w.cut, '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
        if base[1] then w.base_total, w.base_us = sl_total(w.key, base[1]), tonumber(base[2]) end
        w.count = w.newest_total - w.base_total
      end
    end
    w.fits = w.count + cost <= w.limit
  end

  function sliding_log.plan(w, counted)
    -- the count stays capped at the limit: a denied hit that counts fills the window, no more
    local added = not counted and 0 or w.fits and cost or min(cost, max(w.limit - w.count, 0))
    -- never log before the newest member, so a clock step back cannot reorder members
    local ts = max(now_us, w.newest_us or 0)
    local merged = added > 0 and not w.fits and w.newest_us ~= nil and w.newest_us > w.cut
    if added > 0 then
      if w.replace then later('DEL', w.key) end
      if w.base_us then later('ZREMRANGEBYSCORE', w.key, '-inf', '(' .. int(w.base_us)) end
      -- a denied hit joins the newest member in the window, which moves to now (lua/README.md)
      if merged then later('ZREM', w.key, sl_member(w.newest_total)) end
      later('ZADD', w.key, ts, sl_member(w.newest_total + added))
      w.count = w.count + added
    end
    local newest = added > 0 and ts or w.newest_us
    w.reset_ms = (newest and newest > w.cut) and max(ceil((newest + w.window_us - now_us) / 1000), 1) or 0
    if (added > 0 or w.ttl == -1) and w.reset_ms > 0 then
      if added == 0 and w.base_us then later('ZREMRANGEBYSCORE', w.key, '-inf', '(' .. int(w.base_us)) end
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

  -- A hash {start, cur, prev}: counts of the aligned window starting at `start` and of the one before.
  -- The estimate weighs prev by the part of the previous window still inside the sliding window.
  -- All time math is relative to the window start (ms since ws), so nothing rounds in epoch terms.
  local function sw_estimate(w, elapsed, cur, prev)
    return mul_div(prev, w.window_ms - elapsed, w.window_ms) + cur
  end

  -- The first elapsed ms e in [0, W] at which floor(count * (W - e) / W) <= allowed.
  local function sw_first_fit(W, count, allowed)
    if count <= allowed then return 0 end
    -- floor(count * (W - e) / W) <= allowed  <=>  W - e < (allowed + 1) * W / count
    return max(W + 1 - ceil_mul_div(allowed + 1, W, count), 0)
  end

  function sliding_window.load(w)
    w.ws = floor(now_ms / w.window_ms) * w.window_ms
    w.start, w.cur, w.prev = w.ws, 0, 0
    if w.ttl > 0 or w.ttl == -1 then
      local h = redis.call('HMGET', w.key, 'start', 'cur', 'prev')
      if h[1] or h[2] or h[3] then
        local start = stored_int(w.key, 'start', h[1] or 'missing')
        local cur = min(stored_int(w.key, 'cur', h[2] or 'missing'), MAX_STORED)
        local prev = min(stored_int(w.key, 'prev', h[3] or 'missing'), MAX_STORED)
        if start >= w.ws then
          w.start, w.cur, w.prev = start, cur, prev -- current window (or a clock step back: keep it)
        elseif start == w.ws - w.window_ms then
          w.prev = cur                              -- one window passed
        end                                         -- two or more passed: both are 0
      end
    end
    w.elapsed = now_ms - w.ws
    w.count = sw_estimate(w, w.elapsed, w.cur, w.prev)
    w.fits = w.count + cost <= w.limit
  end

  function sliding_window.plan(w, counted)
    local W = w.window_ms
    local cur, prev = min(w.cur + (counted and cost or 0), MAX_STORED), w.prev
    if counted then later('HSET', w.key, 'start', w.start, 'cur', cur, 'prev', prev) end
    if counted or w.ttl == -1 then later('PEXPIRE', w.key, 2 * W) end
    w.count = sw_estimate(w, w.elapsed, cur, prev)
    w.reset_ms = cur > 0 and 2 * W - w.elapsed or prev > 0 and W - w.elapsed or 0
    if not w.fits then
      local room = w.limit - cost - cur                -- what prev may still weigh in this window
      local e = room >= 0 and sw_first_fit(W, prev, room) or W
      if e >= W then e = W + sw_first_fit(W, cur, w.limit - cost) end   -- next window: cur becomes prev
      w.retry_ms = max(e - w.elapsed, 1)
    end
  end

  -- GCRA: the string holds the theoretical arrival time (TAT) in µs, "<us>" or "<us>+<num>/<den>"
  -- with the exact fraction of a µs. Each unit of cost moves it by window_us / limit µs, kept as
  -- whole µs plus a remainder in 1/limit µs, so no rounding adds up (600k per second stays 600k).
  -- A hit passes if the TAT stays within one window of now.
  local function tb_after(w, us, num, q, r)          -- (us + num/limit) + (q + r/limit)
    local total = num + r
    return us + q + floor(total / w.limit), total % w.limit
  end

  local function tb_ahead_us(us, num)                -- µs from now to the TAT, rounded up
    return us - now_us + (num > 0 and 1 or 0)
  end

  local function tb_used(w, us, num)                 -- units in the bucket: ceil(ahead * limit / window)
    local q, r = mul_div(us - now_us, w.limit, w.window_us)
    return q + ceil((r + num) / w.window_us)
  end

  function token_bucket.load(w)
    local s = (w.ttl > 0 or w.ttl == -1) and redis.call('GET', w.key) or nil
    local us, num = now_us, 0
    if s then
      local a, b, c = s:match('^(%d+)%+(%d+)/(%d+)$')
      local stored, n, d = to_int(a or s), to_int(b or '0'), to_int(c or '1')
      if not stored or not n or not d or d < 1 or n >= d then
        fail('TG_CORRUPT', string.format('key %s holds TAT "%s", expected "<us>" or "<us>+<num>/<den>"', w.key, s:sub(1, 40)))
      end
      if stored > now_us or (stored == now_us and n > 0) then
        us, num = stored, (d == w.limit) and n or mul_div(n, w.limit, d)
      end
    end
    w.tat_us, w.tat_num = us, num
    w.inc_q, w.inc_r = mul_div(cost, w.window_us, w.limit)
    w.count = tb_used(w, us, num)
    local next_us, next_num = tb_after(w, us, num, w.inc_q, w.inc_r)
    local ahead = next_us - now_us
    w.fits = ahead < w.window_us or (ahead == w.window_us and next_num == 0)
  end

  function token_bucket.plan(w, counted)
    local us, num = w.tat_us, w.tat_num
    if counted then
      us, num = tb_after(w, us, num, w.inc_q, w.inc_r)
      if not w.fits and tb_ahead_us(us, num) > w.window_us then
        us, num = now_us + w.window_us, 0             -- denied hits fill the bucket, no more
      end
    end
    w.reset_ms = ceil(tb_ahead_us(us, num) / 1000)
    local tat = num > 0 and int(us) .. '+' .. int(num) .. '/' .. int(w.limit) or int(us)
    if counted then later('SET', w.key, tat, 'PX', w.reset_ms + 1) end
    if w.ttl == -1 and not counted then later('PEXPIRE', w.key, w.reset_ms + 1) end
    w.count = tb_used(w, us, num)
    if not w.fits then
      local next_us, next_num = tb_after(w, us, num, w.inc_q, w.inc_r)
      w.retry_ms = max(ceil((tb_ahead_us(next_us, next_num) - w.window_us) / 1000), 1)
    end
  end

  local impl = ({ fixed_window = fixed_window, sliding_log = sliding_log,
                  sliding_window = sliding_window, token_bucket = token_bucket })[alg]
  local function plan_all(counted)
    for _, w in ipairs(windows) do
      if mode == 'peek' then            -- the window as it stands, before the hit: reply [10], [11]
        impl.plan(w, false)
        w.count_now, w.reset_now = w.count, w.reset_ms
      end
      impl.plan(w, counted)
      if not w.fits and cost > w.limit then w.retry_ms = -1 end   -- never: it can never fit
    end
  end

  ---------------------------------------------------------------- bans
  -- ms left of a ban (-1 = permanent) and, when timed, its end (the key's expiry), or nil when
  -- the key holds no ban in force.
  local function ban_left(key)
    local at = redis.call('PEXPIRETIME', key)
    if at == -2 then return nil end
    if at > now_ms then return at - now_ms, at end
    if at >= 0 then return nil end                   -- it ends within this millisecond
    local until_ms = stored_int(key, 'until_ms', redis.call('HGET', key, 'until_ms') or 'missing')
    if until_ms == 0 then return -1 end
    later('PEXPIREAT', key, until_ms)               -- a timed ban that lost its TTL
    if until_ms > now_ms then return until_ms - now_ms, until_ms end
    return nil
  end

  local function longer(a, b)                       -- -1 (never) is the longest, nil none
    if a == nil or b == nil then return a or b end
    return (a == -1 or b == -1) and -1 or max(a, b)
  end

  -- The end of a ban is a fresh start: no window of this action outlives it, nor reports a reset
  -- after it (left: ms until the ban's end). A peek's windows as they stand end with a ban in
  -- force, not with the one the hit would create.
  local function end_windows_at(until_ms, left, in_force)
    for _, w in ipairs(windows) do
      later('PEXPIREAT', w.key, until_ms, 'LT')
      w.reset_ms = min(w.reset_ms, left)
      if w.reset_now and in_force then w.reset_now = min(w.reset_now, left) end
    end
  end

  local user_left, user_end = ban_left(KEYS[1])
  local action_left, action_end = ban_left(KEYS[2])
  local banned, ban_end = longer(user_left, action_left), max(user_end or 0, action_end or 0)

  local expected = ({ fixed_window = 'string', sliding_log = 'zset', sliding_window = 'hash', token_bucket = 'string' })[alg]
  for _, w in ipairs(windows) do
    expect_type(w.key, expected, 'a ' .. expected .. ' (' .. alg .. ')')
    local at = redis.call('PEXPIRETIME', w.key)
    w.ttl = at < 0 and at or max(at - now_ms, 0)
  end
  for _, w in ipairs(windows) do impl.load(w) end

  local function reply(w, allowed, tier, retry)
    local r = { allowed and 1 or 0, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry }
    if mode == 'peek' then r[8], r[9], r[10], r[11] = '', 0, w.count_now, w.reset_now end
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
    if banned > 0 then end_windows_at(ban_end, banned, true) end
    return reply(smallest_remaining(), false, 'banned', banned)
  end

  ---------------------------------------------------------------- decision
  local allowed = true
  for _, w in ipairs(windows) do allowed = allowed and w.fits end
  local counted = allowed or count_denied
  local first_before = windows[1].count
  plan_all(counted)

  -- global: also mirror the entry into KEYS[4], the stream the console follows (unless it is off)
  local function audit(event, reason, until_ms, global)
    expect_type(KEYS[3], 'stream', 'an audit stream')
    later('XADD', KEYS[3], 'MAXLEN', '~', 1000, '*', 'event', event, 'user', user, 'action', action,
      'actor', 'tollgate', 'reason', reason, 'until_ms', until_ms)
    later('PEXPIRE', KEYS[3], AUDIT_TTL_MS)   -- history lives 90 days after its last entry
    if global and KEYS[4] ~= '' and KEYS[4] ~= KEYS[3] then
      expect_type(KEYS[4], 'stream', 'an audit stream')
      later('XADD', KEYS[4], 'MAXLEN', '~', GLOBAL_AUDIT_LEN, '*', 'event', event, 'user', user,
        'action', action, 'actor', 'tollgate', 'reason', reason, 'until_ms', until_ms)
    end
  end

  if allowed then
    local first = windows[1]
    local tier = (warn > 0 and first.count > warn) and 'warn' or 'ok'
    if warn > 0 and first_before <= warn and first.count > warn then
      audit('warn', string.format('count %d > warn %d', first.count, warn), 0)
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
    local until_ms = now_ms + ban_ms
    if ban_until == 'midnight' then until_ms = max(until_ms, local_boundary(zone, now_ms, DAY)) end
    local reason = string.format('limit exceeded: %d/%d per %d ms',
      binding.count + (counted and 0 or cost), binding.limit, binding.window_ms)
    expect_type(KEYS[2], 'hash', 'a ban hash')
    later('DEL', KEYS[2])
    later('HSET', KEYS[2], 'reason', reason, 'actor', 'tollgate', 'created_ms', now_ms, 'until_ms', until_ms,
      'scope', 'action', 'action', action, 'source', 'auto')
    later('PEXPIREAT', KEYS[2], until_ms)
    audit('auto_ban', reason, until_ms, true)
    if channel ~= '' then later('PUBLISH', channel, 'ban\n' .. #user .. '\n' .. user .. action) end
    end_windows_at(until_ms, until_ms - now_ms)
    -- the windows end with the ban, so the ban's end is exactly when a hit passes again
    if retry ~= -1 then retry = until_ms - now_ms end
  end
  return reply(binding, false, 'deny', retry)
end

local ok, result = pcall(main)
if not ok then
  -- ours ("TG_...") or Redis' own ("WRONGTYPE ...") go back as they are; a Lua fault is raised
  if type(result) == 'string' and result:match('^[%u_]+ ') then return redis.error_reply(result) end
  error(result, 0)
end
if ARGV[1] == 'hit' then
  -- Every queued write must be allowed to this ACL user before the first one runs: a ban is
  -- never left without its audit entries, nor a counter half-updated.
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply(string.format('TG_NOPERM this user may not run %s on %s; nothing was written',
        cmd[1], cmd[2]))
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end
return result
