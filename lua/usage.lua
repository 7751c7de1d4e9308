--[[ usage.lua: add the requests a proxy already decided to the counters of one or more
(policy, subject) pairs, and report what is left in each: the quota reports of tollgated's RLQS
(envoy.service.rate_limit_quota.v3), one call per report batch.

Per bucket, in order, its keys and its arguments (the buckets' KEYS and ARGV follow one another;
k and a are where the bucket's own start, n its windows):
KEYS[k]            user-wide ban hash   <p>:{<user>}:ban
KEYS[k+1]          action ban hash      <p>:{<user>}:<action>:ban
KEYS[k+2]          the user's overrides <p>:{<user>}:overrides
KEYS[k+3..k+2+n]   n state keys         <p>:{<user>}:<action>:fw:<window_ms>
ARGV[a], ARGV[a+1] raw user id, raw action id (1..1024 bytes each)
ARGV[a+2]          allowed: requests let through, 0..1e9
ARGV[a+3]          denied: requests refused by the proxy, 0..1e9 (counted only with count_denied)
ARGV[a+4]          count_denied "0" | "1"
ARGV[a+5]          align "first_hit" | "calendar" (windows of 60000/3600000/86400000/604800000 ms
                   start on the local minute/hour/day/week, as hit.lua's)
ARGV[a+6]          UTC offsets of the policy's zone, as hit.lua's ARGV[8] ("0" for UTC)
ARGV[a+7]          n, 1..8
ARGV[a+8..a+7+2n]  n pairs limit (1..1e9), window_ms (1..31536000000, all different)
Every key must be exactly the one lua/README.md builds from the ids. Only fixed_window counters:
the algorithm of Envoy's own limits.

Each bucket's count is added to every window, past its limit if need be (the proxy has already
let those requests through): a fresh counter gets its window's expiry, a counting one keeps its
own, one found without a TTL gets it back. A bucket whose user or action is banned counts
nothing. An override of the user applies as in hit.lua: "unlimited" counts and reports the
bucket exempt; "limit" puts its limits on the windows when it has their lengths (else the
policy's limits stay).
Nothing is published and nothing is audited: these are requests already decided.

Reply: 6 elements per bucket, in order: state "ok" | "banned" | "exempt", then count, limit,
  remaining, reset_ms of the binding window (the one with the least remaining; reset_ms 0 when
  it holds nothing), then ban_ms: ms left of the longer ban (-1: permanent; 0: none).
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key of ours holds a value of the wrong
  shape), TG_NOPERM (the ACL user may not write a counter): nothing is written.

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/constants.lua"
--@include "hit/constants.lua"
--@include "includes/contract_query.lua"

local function signed_int(s)
  return type(s) == 'string' and #s <= 17 and s:find('^%-?%d+$') and s + 0 or nil
end
--@include "hit/checks.lua"
--@include "hit/escape.lua"

local now_ms
local t = redis.call('TIME')
now_ms = floor((t[1] * 1000000 + t[2]) / 1000)

--@include "hit/time.lua"

local HEAD = 8                     -- ARGV per bucket before its pairs
local CALENDAR = { [MINUTE] = true, [HOUR] = true, [DAY] = true, [WEEK] = true }

-- ms left of a ban hash (-1 = permanent), nil when none is in force.
local function ban_ms_left(key)
  local at = redis.call('PEXPIRETIME', key)
  if at == -2 then return nil end
  if at >= 0 then return at > now_ms and at - now_ms or nil end
  local until_ms = stored_int(key, 'until_ms', redis.call('HGET', key, 'until_ms') or 'missing')
  if until_ms == 0 then return -1 end
  if until_ms > now_ms then return until_ms - now_ms end
end

local function longest_wait(a, b)
  if a == nil or b == nil then return a or b end
  return (a == -1 or b == -1) and -1 or max(a, b)
end

-- Reads every bucket first (all checks before any write); the writes run at the end.
local writes = {}
local function main()
local buckets, k, a = {}, 1, 1
while a <= #ARGV do
  local b = { user = ARGV[a], action = ARGV[a + 1] }
  for _, id in ipairs({ b.user, b.action }) do
    if #id < 1 or #id > MAX_ID then fail('TG_INVALID', 'ids must be 1..1024 bytes') end
  end
  b.allowed = arg_int(a + 2, 'allowed', 0, MAX_COUNT)
  b.denied = arg_int(a + 3, 'denied', 0, MAX_COUNT)
  b.count_denied = ARGV[a + 4] == '1'
  if ARGV[a + 4] ~= '0' and ARGV[a + 4] ~= '1' then fail('TG_INVALID', 'count_denied must be 0 or 1') end
  local align = ARGV[a + 5]
  if align ~= 'first_hit' and align ~= 'calendar' then
    fail('TG_INVALID', 'align must be first_hit or calendar, got "' .. tostring(align):sub(1, 40) .. '"')
  end
  b.zone = align == 'calendar' and parse_offsets(ARGV[a + 6]) or nil
  local n = arg_int(a + 7, 'the number of windows', 1, MAX_WINDOWS)
  if a + HEAD - 1 + 2 * n > #ARGV or k + 2 + n > #KEYS then
    fail('TG_INVALID', 'bucket ' .. (#buckets + 1) .. ' has fewer keys or arguments than its windows need')
  end
  local base = KEYS[k]:match('^([^{]*){')
  local user, action = escape(b.user), escape(b.action)
  local tag = (base or '') .. '{' .. user .. '}:'
  local expected = { tag .. 'ban', tag .. action .. ':ban', tag .. 'overrides' }
  b.windows = {}
  for w = 1, n do
    local limit = arg_int(a + HEAD + 2 * w - 2, 'limit', 1, MAX_COUNT)
    local window_ms = arg_int(a + HEAD + 2 * w - 1, 'window_ms', 1, MAX_WINDOW_MS)
    for _, other in ipairs(b.windows) do
      if other.window_ms == window_ms then fail('TG_INVALID', 'a window is given twice') end
    end
    b.windows[w] = { limit = limit, window_ms = window_ms, key = KEYS[k + 2 + w] }
    expected[3 + w] = tag .. action .. ':fw:' .. window_ms
  end
  for i, key in ipairs(expected) do
    if not base or KEYS[k + i - 1] ~= key then
      fail('TG_INVALID', string.format('KEYS[%d] is "%s", expected "%s"', k + i - 1,
        tostring(KEYS[k + i - 1]):sub(1, 200), key:sub(1, 200)))
    end
  end
  b.ban_key, b.action_ban_key, b.overrides_key = expected[1], expected[2], expected[3]
  buckets[#buckets + 1] = b
  k, a = k + 3 + n, a + HEAD + 2 * n
end
if k <= #KEYS then fail('TG_INVALID', 'more keys than the buckets need') end

local reply = {}
for _, b in ipairs(buckets) do
  local banned
  if redis.call('EXISTS', b.ban_key, b.action_ban_key) > 0 then
    banned = longest_wait(ban_ms_left(b.ban_key), ban_ms_left(b.action_ban_key))
  end
  -- The override, read as hit.lua reads it (hit/override.lua).
  local applied, spec = '', nil
  local stored = redis.pcall('HMGET', b.overrides_key, escape(b.action), '*')
  if stored.err then
    assert_type(b.overrides_key, 'hash', 'an overrides hash')
    error(stored, 0)
  end
  for i = 1, 2 do
    local value = stored[i]
    if value and not spec then
      local kind, until_ms, text = value:match('^(%l+) (%d+) %d+ (%S+) %d+ ')
      if (kind ~= 'limit' and kind ~= 'unlimited') or #until_ms > 15 then
        fail('TG_CORRUPT', string.format('key %s holds "%s", expected an override', b.overrides_key, value:sub(1, 60)))
      end
      if until_ms == '0' or until_ms + 0 > now_ms then applied, spec = kind, text end
    end
  end
  if applied == 'limit' then
    local limits, count = {}, 0
    for ms, limit in spec:gmatch('(%d+):(%d+)') do limits[ms + 0], count = limit + 0, count + 1 end
    local same = count == #b.windows
    for _, w in ipairs(b.windows) do same = same and limits[w.window_ms] ~= nil end
    if same then
      for _, w in ipairs(b.windows) do w.limit = max(1, min(limits[w.window_ms], MAX_COUNT)) end
    end
  end
  local add = banned and 0 or b.allowed + (b.count_denied and b.denied or 0)
  local binding
  for _, w in ipairs(b.windows) do
    local ttl = redis.call('PTTL', w.key)
    local count = 0
    if ttl > 0 or ttl == -1 then
      local got = redis.pcall('GET', w.key)
      if type(got) == 'table' and got.err then
        assert_type(w.key, 'string', 'a fixed-window counter')
        error(got, 0)
      end
      count = stored_int(w.key, 'counter', got) or 0
    end
    local fresh = ttl == -2 or ttl == 0
    local boundary = b.zone and CALENDAR[w.window_ms] and local_boundary(b.zone, now_ms, w.window_ms)
    local length = boundary and boundary - now_ms or w.window_ms
    local px, at, pexpire = 'PX', length, 'PEXPIRE'
    if boundary then px, at, pexpire = 'PXAT', boundary, 'PEXPIREAT' end
    w.reset_ms = fresh and 0 or max(ttl, 0)
    if add > 0 then
      count = min(count + add, MAX_STORED)
      if fresh then
        writes[#writes + 1] = { 'SET', w.key, count, px, at }
      else
        writes[#writes + 1] = { 'SET', w.key, count, 'KEEPTTL' }
      end
    end
    if ttl == -1 then writes[#writes + 1] = { pexpire, w.key, at } end
    if ttl == -1 or (add > 0 and fresh) then w.reset_ms = length end
    w.count = count
    w.remaining = max(w.limit - count, 0)
    if not binding or w.remaining < binding.remaining then binding = w end
  end
  local state = banned and 'banned' or (applied == 'unlimited' and 'exempt' or 'ok')
  for _, x in ipairs({ state, binding.count, binding.limit, binding.remaining, binding.reset_ms, banned or 0 }) do
    reply[#reply + 1] = x
  end
end

return reply
end

local ok, result = pcall(main)
if not ok then
  if type(result) == 'string' and result:find('^[%u_]+ ') then return redis.error_reply(result) end
  error(result, 0)
end
--@include "includes/write_plan.lua"
local refused = apply(writes)
if refused then return refused end
return result
