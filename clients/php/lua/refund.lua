--[[ refund.lua: give back units hits counted ("refund") or count extra ones ("penalize").

KEYS             exactly hit.lua's full form: user ban, action ban, the user's overrides, user audit
                 stream, global audit stream ("" or KEYS[4] again = no global mirror), one state key
                 per window (1..8)
ARGV[1]          mode: "refund" | "penalize"
ARGV[2..12]      as hit.lua's full form (count_denied and warn are checked, not used)
ARGV[13]         actor: who penalizes (required for penalize; the actor of a ban it creates)
ARGV[14]         reason (required for penalize; part of the reason of a ban it creates)
ARGV[15..14+2n]  n pairs limit_i, window_ms_i, as hit.lua's ARGV[13..], then optionally "override"
                 The user's override applies as in hit.lua (TG_OVERRIDE included); a penalty of an
                 exempt ("unlimited") user never bans.
                 ARGV[3] (cost, 1..1e9) is the number of units to give back or to add.

refund: in every window, cost units leave the newest ones counted, never below empty, and no
  TTL is set, extended or repaired (lua/README.md, "refund.lua" has the rule per algorithm). A
  window with nothing in it (no key) is left as it is. Bans are not touched, nothing is audited.
  When a window changed and a channel is given, the event "refund" is published (a refusal held
  in memory elsewhere may be lifted).
penalize: a hit of cost units that is always counted in every window, past the limit too (the
  state hit.lua would write if this hit fitted). When a hit of that cost would have been denied
  (some window's count before + cost > limit), the policy has a ban (ban_ms / ban_until) and no
  ban is in force, the action's ban is written as hit.lua's automatic ban (source "auto", event
  "auto_ban" in both audit streams, actor ARGV[13], reason "penalty: <ARGV[14]>; limit exceeded:
  ..."), and the windows end with it. During a ban in force the units count too, and the windows
  end with that ban.
Reply: { changed 1|0, ban_created 1|0, count, limit, remaining, reset_ms, ban_until_ms }
  count, limit, remaining, reset_ms: the window with the smallest remaining after the call, as in
  hit.lua's reply; changed 0 = nothing was written (refund of empty windows); ban_until_ms: the
  end of the ban created (epoch ms), else 0.
Errors: hit.lua's: TG_INVALID, TG_CORRUPT (naming the key), TG_CONTRACT, TG_OVERRIDE, TG_NOPERM (nothing written).

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
FIXED_ARGS = 14                 -- actor and reason follow hit.lua's first twelve

local alg = ARGV[2]
local now_us, now_ms
local clock, to_int, mul_div
do
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

local short, full_form = false, nil
local SCRIPT, MODE_A, MODE_B, MODE_C = 'refund', 'refund', 'penalize', nil
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

local writes = {}
local function later(...) writes[#writes + 1] = { ... } end
-- The event (lua/README.md, "Events") queued into the write plan when a channel is given:
-- "<event>\n<byte length of user>\n<user><action>", the length keeping ids with newlines apart.
local function publish(writes, channel, event, user, action)
  if channel ~= '' then
    writes[#writes + 1] = { 'PUBLISH', channel, event .. '\n' .. #user .. '\n' .. user .. action }
  end
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
  local actor, reason = ARGV[13], ARGV[14]
  if mode == 'penalize' and (actor == '' or reason == '') then
    fail('TG_INVALID', 'penalize needs an actor and a reason')
  end
  if #actor > MAX_ID or #reason > 4 * MAX_ID then fail('TG_INVALID', 'actor or reason too long') end
  -- hit.lua's reading and arithmetic per algorithm, then this script's refund rule.
  local load, plan, expected, read, refund
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
    -- Refund: the counter goes down by cost, never below 0 (SET ... KEEPTTL: its TTL stays).
    function refund(w)
      local after = max(w.count - cost, 0)          -- (w.count is 0 for a missing counter)
      if after < w.count then later('SET', w.key, after, 'KEEPTTL') end
      w.changed, w.count = after < w.count, after
      w.reset_ms = after > 0 and max(w.ttl, 0) or 0
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
    -- Refund: the newest units leave the log, down to target = max(newest total - cost, base
    -- total). The members whose running total is above target go (ZREMRANGEBYRANK); when target
    -- is above the total of the member before them, a member holding target takes the place of the
    -- first that went, at its score: no unit moves later in time, the TTL stays (it is added first).
    function refund(w)
      local newest_us = w.newest_us
      if not w.replace and w.count > 0 then
        local target = max(w.newest_total - cost, w.base_total)
        local lo, hi = 0, redis.call('ZCARD', w.key) - 1
        while lo < hi do
          local mid = floor((lo + hi) / 2)
          if sl_total(w.key, redis.call('ZRANGE', w.key, mid, mid)[1]) > target then hi = mid else lo = mid + 1 end
        end
        local first = redis.call('ZRANGE', w.key, lo, lo, 'WITHSCORES')
        local before = lo > 0 and redis.call('ZRANGE', w.key, lo - 1, lo - 1, 'WITHSCORES') or {}
        newest_us = before[2] and tonumber(before[2])
        if target > (before[1] and sl_total(w.key, before[1]) or 0) then
          -- Added before the others go: a log emptied first would be deleted, and the ZADD
          -- would make it again without its TTL. At the first's score and with a smaller total,
          -- the new member sorts just before it (rank lo).
          later('ZADD', w.key, first[2], sl_member(target))
          later('ZREMRANGEBYRANK', w.key, lo + 1, -1)
          newest_us = tonumber(first[2])
        else
          later('ZREMRANGEBYRANK', w.key, lo, -1)
        end
        w.changed, w.count = true, target - w.base_total
      end
      w.reset_ms = (w.count > 0 and newest_us and newest_us > w.cut)
        and max(ceil((newest_us + w.window_us - now_us) / 1000), 1) or 0
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
    -- Refund: from the current aligned window's count (cur) only, never below 0; what the previous
    -- window counted fades as it always does. HSET of the three fields, the TTL stays.
    function refund(w)
      local taken = min(cost, w.cur)
      if taken > 0 then later('HSET', w.key, 'start', w.start, 'cur', w.cur - taken, 'prev', w.prev) end
      local W = w.window_ms
      w.changed, w.cur = taken > 0, w.cur - taken
      w.count = mul_div(w.prev, W - w.elapsed, W) + w.cur
      w.reset_ms = w.cur > 0 and 2 * W - w.elapsed or w.prev > 0 and W - w.elapsed or 0
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
    -- Refund: the TAT moves back by cost units (cost * window_us / limit µs, exact to 1/limit µs),
    -- never before now (an empty bucket). SET ... KEEPTTL: the TTL stays.
    function refund(w)
      local us, num = w.tat_us, w.tat_num
      if w.count > 0 then
        us, num = us - w.inc_q, num - w.inc_r
        if num < 0 then us, num = us - 1, num + w.limit end
        if us < now_us then us, num = now_us, 0 end
        later('SET', w.key, num > 0 and string.format('%d+%d/%d', us, num, w.limit) or us, 'KEEPTTL')
        w.changed, w.count = true, used(w, us, num)
      end
      w.reset_ms = ceil((us - now_us + (num > 0 and 1 or 0)) / 1000)
    end
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

  if mode == 'penalize' then clock() end            -- it may run into a ban: one clock (hit/windows.lua)
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

  local changed, ban_until_ms = false, 0
  if mode == 'refund' then
    for _, w in ipairs(windows) do
      refund(w)
      changed = changed or w.changed
    end
    -- Units given back may lift a refusal that others hold in memory (tollgated's cache).
    if changed then publish(writes, channel, 'refund', user, action) end
  else
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
    local over                                      -- the first window a hit of this cost would exceed
    for _, w in ipairs(windows) do
      if not w.fits and not over then over = w end
      w.fits = true                                 -- counted as if it fitted: past the limit too
    end
    plan_all(true)
    changed = true
    if banned then
      if banned > 0 then end_windows_at(ban_end, banned) end
    elseif over and not exempt and (ban_ms > 0 or ban_until == 'midnight') then
      ban_until_ms = auto_ban(string.format('penalty: %s; limit exceeded: %d/%d per %d ms',
        reason, over.count, over.limit, over.window_ms), actor)
    end
  end
  local w = smallest_remaining()
  return { changed and 1 or 0, ban_until_ms > 0 and 1 or 0, w.count, w.limit, max(w.limit - w.count, 0),
    w.reset_ms, ban_until_ms }
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
