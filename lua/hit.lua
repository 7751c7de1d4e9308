--[[ hit.lua: count one hit of an action (mode "hit") or report what a hit would get ("peek").

KEYS[1]          user-wide ban hash        <p>:{<user>}:ban
KEYS[2]          action ban hash           <p>:{<user>}:<action>:ban
KEYS[3]          user audit stream         <p>:{<user>}:audit
KEYS[4]          global audit stream       <p>:audit  ("" or KEYS[3] again = no global mirror, e.g. on a Cluster)
KEYS[5..4+n]     one state key per window  <p>:{<user>}:<action>:<fw|sl|sw|tb>:<window_ms>   (n >= 1)

ARGV[1]          mode: "hit" | "peek"  (peek writes nothing at all, not even repairs)
ARGV[2]          algorithm: fixed_window | sliding_log | sliding_window | token_bucket
ARGV[3]          cost, integer 1..1e9
ARGV[4]          count_denied: "0" | "1"  (denied hits still count)
ARGV[5]          warn level, 0 = none; applies to the first window
ARGV[6]          ban_ms on exceeding, 0 = no ban
ARGV[7]          ban_until: "" | "midnight" (next local midnight; with ban_ms too, the later end wins)
ARGV[8]          tz_offset_ms: local = utc + offset, |offset| <= 18 h
ARGV[9]          raw user id    (only written into audit entries and events)
ARGV[10]         raw action id  (idem)
ARGV[11]         events channel, "" = do not publish
ARGV[12..11+2n]  n pairs limit_i (1..1e9), window_ms_i (1..31536000000), in the order of KEYS[5..]

Reply: { allowed 1|0, tier "ok"|"warn"|"deny"|"banned", count, limit, remaining, reset_ms, retry_after_ms }
  count, limit, remaining and reset_ms are those of the binding window: when denied, the denying window
  with the longest retry_after; otherwise the window with the smallest remaining.
  reset_ms: ms until that window holds nothing any more (0 if it holds nothing).
  retry_after_ms: 0 when allowed; else ms until a hit of this cost could pass: the later of the end
  of a ban (existing or just created) and the windows' own wait; -1 = never (permanent ban, cost > limit).
Errors: TG_INVALID (bad argument), TG_CORRUPT (a key of ours holds a value of the wrong shape),
  TG_NOPERM (the ACL user may not run one of the writes this hit needs: nothing is written).
An automatic ban writes the ban, the user's audit entry and the global one together, or nothing.
Several windows are all-or-nothing: a hit counts in every window or in none (unless count_denied).
]]

local floor, ceil, max, min = math.floor, math.ceil, math.max, math.min
local MAX_WINDOW_MS = 31536000000
local MAX_COUNT = 1000000000
local MAX_LOG = 100000          -- a sliding log keeps one zset member per unit counted
local MAX_BAN_MS = 3153600000000
local AUDIT_TTL_MS = 7776000000 -- a user's audit stream expires 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000

local function int(x) return string.format('%d', x) end

-- Every check raises a "TG_..." string; the guard at the bottom turns it into an error reply.
local function fail(code, msg) error(code .. ' ' .. msg, 0) end

local function to_int(s)
  if type(s) == 'string' and #s <= 17 and s:match('^%-?%d+$') then return tonumber(s) end
  return nil
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

-- Writes are queued while reading and run at the end, so no error can leave a half-done hit.
local writes = {}
local function later(...)
  local cmd = {...}
  for i, v in ipairs(cmd) do
    if type(v) == 'number' then cmd[i] = int(v) end
  end
  writes[#writes + 1] = cmd
end

local function main()
  ---------------------------------------------------------------- arguments
  if #KEYS < 5 then fail('TG_INVALID', 'hit needs 4 keys plus one state key per window') end
  local n = #KEYS - 4
  if #ARGV ~= 11 + 2 * n then
    fail('TG_INVALID', string.format('hit with %d windows needs %d arguments, got %d', n, 11 + 2 * n, #ARGV))
  end
  local mode, alg = ARGV[1], ARGV[2]
  if mode ~= 'hit' and mode ~= 'peek' then fail('TG_INVALID', 'mode must be hit or peek') end
  if alg ~= 'fixed_window' and alg ~= 'sliding_log' and alg ~= 'sliding_window' and alg ~= 'token_bucket' then
    fail('TG_INVALID', 'algorithm must be fixed_window, sliding_log, sliding_window or token_bucket')
  end
  local cost = arg_int(3, 'cost', 1, MAX_COUNT)
  if ARGV[4] ~= '0' and ARGV[4] ~= '1' then fail('TG_INVALID', 'count_denied must be 0 or 1') end
  local count_denied = ARGV[4] == '1'
  local warn = arg_int(5, 'warn', 0, MAX_COUNT)
  local ban_ms = arg_int(6, 'ban_ms', 0, MAX_BAN_MS)
  local ban_until = ARGV[7]
  if ban_until ~= '' and ban_until ~= 'midnight' then fail('TG_INVALID', 'ban_until must be "" or "midnight"') end
  local tz = arg_int(8, 'tz_offset_ms', -64800000, 64800000)
  local user, action, channel = ARGV[9], ARGV[10], ARGV[11]

  local windows = {}
  for i = 1, n do
    local w = { key = KEYS[4 + i] }
    w.limit = arg_int(10 + 2 * i, 'limit', 1, alg == 'sliding_log' and MAX_LOG or MAX_COUNT)
    w.window_ms = arg_int(11 + 2 * i, 'window_ms', 1, MAX_WINDOW_MS)
    w.window_us = w.window_ms * 1000
    if alg == 'token_bucket' and w.limit > w.window_us then
      fail('TG_INVALID', 'token_bucket needs limit <= window_ms * 1000 (one token per microsecond at most)')
    end
    windows[i] = w
  end

  local t = redis.call('TIME')
  local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local now_ms = floor(now_us / 1000)

  ---------------------------------------------------------------- algorithms
  -- load(w): read the state, set w.count (before this hit), w.fits (this hit would pass this window).
  -- plan(w, counted): compute the state after the hit, queue its writes (and TTL repair), set the
  -- report fields w.count, w.remaining, w.reset_ms, w.retry_ms. Both only read Redis.
  local fixed_window, sliding_log, sliding_window, token_bucket = {}, {}, {}, {}

  function fixed_window.load(w)
    w.count = stored_int(w.key, 'counter', redis.call('GET', w.key)) or 0
    w.ttl = redis.call('PTTL', w.key)
    w.fits = w.count + cost <= w.limit
  end

  function fixed_window.plan(w, counted)
    if counted then
      w.count = w.count + cost
      later('INCRBY', w.key, cost)
    end
    if (counted and w.ttl == -2) or w.ttl == -1 then
      later('PEXPIRE', w.key, w.window_ms)        -- a new counter, or one that lost its TTL
      w.reset_ms = w.window_ms
    else
      w.reset_ms = max(w.ttl, 0)
    end
    if not w.fits then
      w.retry_ms = cost > w.limit and -1 or max(w.reset_ms, 1)
    end
  end

  -- A zset of one member per unit counted, scored by its time in microseconds; members are
  -- "<us>-<seq>" with seq zero-padded so that, within one score, the last member has the highest seq.
  function sliding_log.load(w)
    w.cut = now_us - w.window_us                -- members scored <= cut are out of the window
    w.count = redis.call('ZCOUNT', w.key, '(' .. int(w.cut), '+inf')
    w.ttl = redis.call('PTTL', w.key)
    local newest = redis.call('ZREVRANGEBYSCORE', w.key, '+inf', '(' .. int(w.cut), 'WITHSCORES', 'LIMIT', 0, 1)
    if newest[1] then
      w.newest_us = tonumber(newest[2])
      w.newest_seq = tonumber(newest[1]:match('^%d+%-(%d+)$') or '')
      if not w.newest_us or not w.newest_seq then
        fail('TG_CORRUPT', string.format('key %s holds member "%s", expected "<us>-<seq>"', w.key, newest[1]:sub(1, 40)))
      end
    end
    w.fits = w.count + cost <= w.limit
  end

  function sliding_log.plan(w, counted)
    local live = w.count
    local added = counted and min(cost, w.limit) or 0
    -- never log before the newest member, so a clock step back cannot reorder or collide members
    local ts = max(now_us, w.newest_us or 0)
    if added > 0 then
      local seq = (w.newest_us == ts) and w.newest_seq or 0
      later('ZREMRANGEBYSCORE', w.key, '-inf', w.cut)
      local batch = {}
      for i = 1, added do
        batch[#batch + 1] = ts
        batch[#batch + 1] = string.format('%d-%07d', ts, seq + i)
        if #batch == 1000 or i == added then
          later('ZADD', w.key, unpack(batch))
          batch = {}
        end
      end
      if live + added > w.limit then
        later('ZREMRANGEBYRANK', w.key, 0, -(w.limit + 1))   -- keep only the newest `limit` members
      end
    end
    w.count = min(live + added, w.limit)
    local newest = added > 0 and ts or w.newest_us
    w.reset_ms = newest and max(ceil((newest + w.window_us - now_us) / 1000), 1) or 0
    if (added > 0 or w.ttl == -1) and w.reset_ms > 0 then
      if added == 0 then later('ZREMRANGEBYSCORE', w.key, '-inf', w.cut) end
      later('PEXPIRE', w.key, w.reset_ms)
    elseif w.ttl == -1 and w.reset_ms == 0 then
      later('DEL', w.key)   -- a log without TTL whose entries all left the window
    end
    if not w.fits then
      if cost > w.limit then
        w.retry_ms = -1
      else
        -- live old members, then `added` new ones; the first `drop` of them must leave the window
        local drop = live + added + cost - w.limit
        local oldest_needed = ts
        if drop <= live then
          local m = redis.call('ZRANGEBYSCORE', w.key, '(' .. int(w.cut), '+inf', 'WITHSCORES', 'LIMIT', drop - 1, 1)
          oldest_needed = tonumber(m[2])
        end
        w.retry_ms = max(ceil((oldest_needed + w.window_us - now_us) / 1000), 1)
      end
    end
  end

  -- A hash {start, cur, prev}: counts of the aligned window starting at `start` and of the one before.
  -- The estimate weighs prev by the part of the previous window still inside the sliding window.
  local function sw_estimate(w, cur, prev)
    return floor(prev * (w.window_ms - (now_ms - w.ws)) / w.window_ms) + cur
  end

  function sliding_window.load(w)
    local h = redis.call('HMGET', w.key, 'start', 'cur', 'prev')
    w.ttl = redis.call('PTTL', w.key)
    w.ws = floor(now_ms / w.window_ms) * w.window_ms
    w.start, w.cur, w.prev = w.ws, 0, 0
    if h[1] or h[2] or h[3] then
      local start = stored_int(w.key, 'start', h[1] or 'missing')
      local cur = stored_int(w.key, 'cur', h[2] or 'missing')
      local prev = stored_int(w.key, 'prev', h[3] or 'missing')
      if start >= w.ws then
        w.start, w.cur, w.prev = start, cur, prev   -- current window (or a clock step back: keep it)
      elseif start == w.ws - w.window_ms then
        w.prev = cur                                -- one window passed
      end                                           -- two or more passed: both are 0
    end
    w.count = sw_estimate(w, w.cur, w.prev)
    w.fits = w.count + cost <= w.limit
  end

  function sliding_window.plan(w, counted)
    local W, ws = w.window_ms, w.ws
    local cur, prev = w.cur + (counted and cost or 0), w.prev
    if counted then
      later('HSET', w.key, 'start', w.start, 'cur', cur, 'prev', prev)
      later('PEXPIRE', w.key, 2 * W)
    elseif w.ttl == -1 then
      later('PEXPIRE', w.key, 2 * W)
    end
    w.count = sw_estimate(w, cur, prev)
    if cur > 0 then w.reset_ms = ws + 2 * W - now_ms
    elseif prev > 0 then w.reset_ms = ws + W - now_ms
    else w.reset_ms = 0 end
    if not w.fits then
      if cost > w.limit then
        w.retry_ms = -1
        return
      end
      -- earliest ms t with estimate(t) + cost <= limit; floor(x) <= a  <=>  x < a + 1
      local a = w.limit - cost - cur
      local t
      if a >= 0 and prev > 0 then             -- later in this window, as prev fades out
        t = floor(ws + W - (a + 1) * W / prev) + 1
      else                                    -- in the next window, where cur becomes prev
        t = ws + W
        if cur > 0 then t = max(t, floor(ws + 2 * W - (w.limit - cost + 1) * W / cur) + 1) end
      end
      w.retry_ms = max(t - now_ms, 1)
    end
  end

  -- GCRA: the string holds the theoretical arrival time (TAT) in microseconds. Each unit of cost
  -- moves it by T = window_us / limit; a hit passes if the TAT stays within one window of now.
  local function tb_used(w, tat)
    return max(ceil((tat - now_us) * w.limit / w.window_us), 0)
  end

  function token_bucket.load(w)
    local stored = stored_int(w.key, 'TAT', redis.call('GET', w.key))
    w.ttl = redis.call('PTTL', w.key)
    w.tat = max(stored or now_us, now_us)
    w.inc = floor(cost * w.window_us / w.limit)
    w.count = tb_used(w, w.tat)
    w.fits = w.tat + w.inc - now_us <= w.window_us
  end

  function token_bucket.plan(w, counted)
    local tat = w.tat
    if counted then tat = min(tat + w.inc, now_us + w.window_us) end
    local ttl = ceil((tat - now_us) / 1000) + 1
    if counted then
      later('SET', w.key, int(tat), 'PX', ttl)
    elseif w.ttl == -1 then
      later('PEXPIRE', w.key, ttl)
    end
    w.count = tb_used(w, tat)
    w.reset_ms = ceil((tat - now_us) / 1000)
    if not w.fits then
      w.retry_ms = cost > w.limit and -1 or max(ceil((tat + w.inc - w.window_us - now_us) / 1000), 1)
    end
  end

  local impl = ({ fixed_window = fixed_window, sliding_log = sliding_log,
                  sliding_window = sliding_window, token_bucket = token_bucket })[alg]

  ---------------------------------------------------------------- bans
  -- ms left of a ban (-1 = permanent), or nil when the key holds no ban in force.
  local function ban_left(key)
    local ttl = redis.call('PTTL', key)
    if ttl == -2 then return nil end
    if ttl >= 0 then return max(ttl, 1) end
    local until_ms = stored_int(key, 'until_ms', redis.call('HGET', key, 'until_ms') or 'missing')
    if until_ms == 0 then return -1 end
    later('PEXPIREAT', key, until_ms)               -- a timed ban that lost its TTL
    if until_ms <= now_ms then return nil end
    return until_ms - now_ms
  end

  local function longer(a, b)                       -- -1 (never) is the longest
    if a == nil then return b end
    if b == nil then return a end
    if a == -1 or b == -1 then return -1 end
    return max(a, b)
  end

  local banned = longer(ban_left(KEYS[1]), ban_left(KEYS[2]))

  -- A state key of the wrong type is named here, before Redis' anonymous WRONGTYPE could be.
  local expected = { fixed_window = 'string', sliding_log = 'zset', sliding_window = 'hash', token_bucket = 'string' }
  for _, w in ipairs(windows) do
    local kind = redis.call('TYPE', w.key).ok
    if kind ~= 'none' and kind ~= expected[alg] then
      fail('TG_CORRUPT', string.format('%s holds a %s, %s needs a %s', w.key, kind, alg, expected[alg]))
    end
  end
  for _, w in ipairs(windows) do impl.load(w) end

  local function reply(w, allowed, tier, retry)
    return { allowed and 1 or 0, tier, w.count, w.limit, max(w.limit - w.count, 0), w.reset_ms, retry }
  end

  local function smallest_remaining()
    local best = windows[1]
    for _, w in ipairs(windows) do
      if w.limit - w.count < best.limit - best.count then best = w end
    end
    return best
  end

  if banned then
    local retry = banned                          -- a window still full after the ban ends counts too
    for _, w in ipairs(windows) do
      impl.plan(w, false)
      if not w.fits then retry = longer(retry, w.retry_ms) end
    end
    return reply(smallest_remaining(), false, 'banned', retry)
  end

  ---------------------------------------------------------------- decision
  local allowed = true
  for _, w in ipairs(windows) do allowed = allowed and w.fits end
  local counted = allowed or count_denied
  local first_before = windows[1].count
  for _, w in ipairs(windows) do impl.plan(w, counted) end

  local function expect_stream(key)
    local kind = redis.call('TYPE', key).ok
    if kind ~= 'none' and kind ~= 'stream' then
      fail('TG_CORRUPT', 'key ' .. key .. ' is a ' .. kind .. ', expected an audit stream')
    end
  end

  -- global: also mirror the entry into KEYS[4], the stream the console follows (unless it is off)
  local function audit(event, reason, until_ms, global)
    expect_stream(KEYS[3])
    later('XADD', KEYS[3], 'MAXLEN', '~', 1000, '*', 'event', event, 'user', user, 'action', action,
      'actor', 'tollgate', 'reason', reason, 'until_ms', until_ms)
    later('PEXPIRE', KEYS[3], AUDIT_TTL_MS)   -- history lives 90 days after its last entry
    if global and KEYS[4] ~= '' and KEYS[4] ~= KEYS[3] then
      expect_stream(KEYS[4])
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
    if ban_until == 'midnight' then
      local day = 86400000
      until_ms = max(until_ms, (floor((now_ms + tz) / day) + 1) * day - tz)
    end
    local reason = string.format('limit exceeded: %d/%d per %d ms',
      binding.count + (counted and 0 or cost), binding.limit, binding.window_ms)
    local kind = redis.call('TYPE', KEYS[2]).ok
    if kind ~= 'none' and kind ~= 'hash' then
      fail('TG_CORRUPT', 'key ' .. KEYS[2] .. ' is a ' .. kind .. ', expected a ban hash')
    end
    later('DEL', KEYS[2])
    later('HSET', KEYS[2], 'reason', reason, 'actor', 'tollgate', 'created_ms', now_ms, 'until_ms', until_ms,
      'scope', 'action', 'action', action, 'source', 'auto')
    later('PEXPIREAT', KEYS[2], until_ms)
    audit('auto_ban', reason, until_ms, true)
    if channel ~= '' then later('PUBLISH', channel, 'ban\n' .. #user .. '\n' .. user .. action) end
    retry = longer(retry, until_ms - now_ms)
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
