-- TEST ONLY (tst_HitDifferential): runs one operation on two key prefixes in ONE script, the
-- reference (tests/reference/hit_reference.lua) on "tgR:" keys and the candidate (lua/hit.lua)
-- on "tgN:" keys, then compares the two replies and the two resulting states.
--
-- The test builds the script as: this prologue, then the bodies wrapped as
--   local function run_reference(KEYS, ARGV) <body> end   (and run_candidate, run_ban, run_unban)
-- then the epilogue below the marker line. The bodies see the `redis` local below instead of
-- the real one: a clock seam. TIME is frozen at the start of this script, PTTL is computed from
-- PEXPIRETIME against that frozen time, and relative expiries (PEXPIRE, SET ... PX) become
-- absolute ones from it. So both scripts see the same clock and write the same expiry times,
-- and the states compare exactly (key expiry itself is frozen during a script in Redis 7).
--
-- KEYS: the operation's keys with the "tgR:" prefix (the candidate gets them as "tgN:").
-- ARGV[1]  operation: hit | hit_short | ban | unban | raw (a Redis command on KEYS, for both prefixes)
--          | shadow: both sides start from the candidate's state (the compared keys copied to
--          "tgR:"), the reference runs mode "hit", the candidate mode "shadow" (shadow_difference)
--          hit_short takes the full form too (a plain policy's): the reference runs it as it is,
--          the candidate gets the short form it stands for, KEYS 1, 2, 5.. and ARGV 1..3, 13..
--          The keys are in the reference's layout (script contract 2); the candidate gets contract
--          3's: the user's overrides hash (none here) as KEYS[3] of either form, and its errors
--          name the keys by their contract-2 index again, so the two compare.
-- ARGV[2]  n, the number of keys to compare after the operation, ARGV[3..2+n] (as "tgR:" keys)
-- ARGV[3+n..]  the operation's arguments
-- Reply: "same <path> <start of the reply>", or "diff\n<reference>\n<candidate>" (reply and state,
-- serialized). <path> says which way the candidate's hit (or hit_short) went: "fast" when a fast path of
-- lua/hit.lua answered (one EXISTS, as a fast path that gives up leaves the general path to run its
-- own, and the state read or written before any PTTL or PEXPIRETIME, as the general path asks the
-- TTL first),
-- else "slow"; then the branches, each after a ':': "undo" (the fixed window's INCRBY taken back,
-- or the sliding window's cur written back), "zero" (INCRBY found a counter holding 0), "ttlless"
-- (the fast path gave a counter its TTL); and the sliding log's fast branches: "head" (the base
-- looked for from the head), "base" (asked for after all), "trim" (older members removed).

local real = redis
local frozen = real.call('TIME')
local frozen_ms = tonumber(frozen[1]) * 1000 + math.floor(tonumber(frozen[2]) / 1000)
local trace           -- the commands the candidate runs, while it runs

local function seam(run)
  return function(cmd, ...)
    local name, args = string.upper(cmd), { ... }
    if trace then trace[#trace + 1] = name end
    if name == 'TIME' then return { frozen[1], frozen[2] } end
    -- the candidate's override lookup is not a read of the state (path_of below)
    if name == 'HMGET' and trace and tostring(args[1]):sub(-11) == '}:overrides' then trace[#trace] = 'OVERRIDES' end
    if name == 'HSET' and trace then                  -- a hash written twice: a write taken back
      trace.hsets = trace.hsets or {}
      trace.hsets[args[1]] = (trace.hsets[args[1]] or 0) + 1
      if trace.hsets[args[1]] > 1 then trace.rewritten = true end
    end
    if name == 'INCRBY' and trace then
      local reply = run(name, unpack(args))
      if reply == tonumber(args[2]) and reply > 0 then trace.zero = true end
      return reply
    end
    if name == 'PTTL' then
      local at = real.call('PEXPIRETIME', args[1])
      if at < 0 then return at end
      return math.max(at - frozen_ms, 0)
    end
    if name == 'PEXPIRE' then
      name, args[2] = 'PEXPIREAT', frozen_ms + tonumber(args[2])
    elseif name == 'SET' then
      for i = 3, #args - 1 do
        if string.upper(tostring(args[i])) == 'PX' then args[i], args[i + 1] = 'PXAT', frozen_ms + tonumber(args[i + 1]) end
      end
    end
    return run(name, unpack(args))
  end
end

local redis = {
  call = seam(real.call), pcall = seam(real.pcall), acl_check_cmd = real.acl_check_cmd,
  error_reply = real.error_reply, status_reply = real.status_reply,
}

--@BODIES@

local function candidate_key(key)
  local renamed = key:gsub('^tgR:', 'tgN:')
  return renamed
end

local function serialize(v, out)
  local t = type(v)
  if t == 'table' then
    if v.err then out[#out + 1] = 'E:' .. v.err return end
    if v.ok then out[#out + 1] = 'S:' .. v.ok return end
    out[#out + 1] = '['
    local i = 1
    while v[i] ~= nil do serialize(v[i], out) i = i + 1 end   -- a reply array ends at the first nil
    out[#out + 1] = ']'
  elseif t == 'number' then
    out[#out + 1] = string.format('%d', v)                    -- Redis truncates Lua numbers so
  elseif t == 'boolean' then
    out[#out + 1] = v and '1' or 'nil'
  elseif t == 'nil' then
    out[#out + 1] = 'nil'
  else
    out[#out + 1] = '"' .. tostring(v) .. '"'
  end
end

local real_now

local function dump(key, out)
  local kind, at = real.call('TYPE', key).ok, real.call('PEXPIRETIME', key)
  if at >= 0 and at <= real_now then kind, at = 'none', -2 end
  out[#out + 1] = key .. ' ' .. kind .. ' at ' .. at
  if kind == 'none' then return end
  local value
  if kind == 'string' then value = real.call('GET', key)
  elseif kind == 'hash' then
    value = real.call('HGETALL', key)
    local pairs_ = {}
    for i = 1, #value, 2 do pairs_[#pairs_ + 1] = value[i] .. '=' .. value[i + 1] end
    table.sort(pairs_)
    value = pairs_
  elseif kind == 'zset' then value = real.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  elseif kind == 'list' then value = real.call('LRANGE', key, 0, -1)
  elseif kind == 'stream' then
    value = {}
    for _, entry in ipairs(real.call('XRANGE', key, '-', '+')) do value[#value + 1] = entry[2] end  -- ids are real time
  end
  if value then serialize(value, out) end
end

local STATE = { GET = true, HMGET = true, ZRANGE = true, INCRBY = true, SET = true, HSET = true, ZADD = true }
local function path_of(commands)
  local exists, state, ttl, incrby, pexpire, seen = 0, nil, nil, 0, false, {}
  for i, name in ipairs(commands) do
    if name == 'EXISTS' then exists = exists + 1 end
    if STATE[name] then state = state or i end
    if name == 'PTTL' or name == 'PEXPIRETIME' then ttl = ttl or i end
    if name == 'INCRBY' then incrby = incrby + 1 end
    if name == 'PEXPIRE' then pexpire = true end
    seen[name] = true
  end
  local fast = exists == 1 and state ~= nil and (ttl == nil or state < ttl)
  local path = fast and 'fast' or 'slow'
  if incrby > 1 or commands.rewritten then path = path .. ':undo' end
  if commands.zero then path = path .. ':zero' end
  if fast and incrby > 0 and pexpire then path = path .. ':ttlless' end
  if fast and seen.ZRANGEBYSCORE then path = path .. ':head' end
  if fast and seen.ZREVRANGEBYSCORE then path = path .. ':base' end
  if fast and seen.ZREMRANGEBYSCORE then path = path .. ':trim' end
  return path
end

-- The short form of a plain policy's full form: no audit keys, no arguments a plain policy fixes
-- (count_denied .. align: the ids are only in the keys).
local function short_form(keys, argv)
  local short_keys, short_argv = { keys[1], keys[2] }, { argv[1], argv[2], argv[3] }
  for i = 5, #keys do short_keys[#short_keys + 1] = keys[i] end
  for i = 13, #argv do short_argv[#short_argv + 1] = argv[i] end
  return short_keys, short_argv
end

-- Contract 3's keys from contract 2's: the overrides hash of KEYS[1]'s user inserted as KEYS[3].
local function with_overrides(keys)
  local out = { keys[1], keys[2], (keys[1]:match('^(.*}:)ban$') or (keys[1] .. ':')) .. 'overrides' }
  for i = 3, #keys do out[#out + 1] = keys[i] end
  return out
end

local function contract2_error(reply)
  if type(reply) == 'table' and type(reply.err) == 'string' then
    reply.err = reply.err:gsub('KEYS%[(%d+)%]', function(k)
      k = tonumber(k)
      return 'KEYS[' .. (k > 3 and k - 1 or k) .. ']'
    end):gsub('needs 6 keys %(user ban, action ban, overrides, (.-), got (%d+)$', function(rest, got)
      return 'needs 5 keys (user ban, action ban, ' .. rest .. ', got ' .. (tonumber(got) - 1)
    end)
  end
  return reply
end

local function run(side, keys, argv)
  local op = ARGV[1]
  if op == 'hit_short' and side == 'N' then keys, argv = short_form(keys, argv) end
  local hit = (op == 'hit' or op == 'hit_short' or op == 'shadow') and side == 'N'
  if hit then keys = with_overrides(keys) end
  if op == 'raw' then                 -- the command, then all the keys, then its arguments
    local cmd = { argv[1] }
    for _, key in ipairs(keys) do cmd[#cmd + 1] = key end
    for i = 2, #argv do cmd[#cmd + 1] = argv[i] end
    return real.pcall(unpack(cmd))
  end
  if op == 'shadow' and side == 'R' then argv = { 'hit', unpack(argv, 2) } end
  local body = ({ ban = run_ban, unban = run_unban })[op] or (side == 'R' and run_reference or run_candidate)
  local ok, reply = pcall(body, keys, argv)
  if not ok and type(reply) ~= 'table' then reply = { err = 'LUA ' .. tostring(reply) } end
  return hit and contract2_error(reply) or reply
end

local n = tonumber(ARGV[2])
local argv = { unpack(ARGV, 3 + n) }
local keys_new = {}
for i, key in ipairs(KEYS) do keys_new[i] = candidate_key(key) end
local shadow_before                     -- "shadow": the candidate's keys before the hit
if ARGV[1] == 'shadow' then
  local t = real.call('TIME')
  real_now, shadow_before = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), {}
  for i = 3, 2 + n do
    local from = candidate_key(ARGV[i])
    if real.call('EXISTS', from) == 1 then real.call('COPY', from, ARGV[i], 'REPLACE') else real.call('DEL', ARGV[i]) end
    local out = {}
    dump(from, out)
    shadow_before[i] = table.concat(out, ' ')
  end
end
local out_r, out_n = { 'reply' }, { 'reply' }
local reply_r = run('R', KEYS, argv)
serialize(reply_r, out_r)
trace = {}
local reply_n = run('N', keys_new, argv)
serialize(reply_n, out_n)
local path = (ARGV[1] == 'hit' or ARGV[1] == 'hit_short') and path_of(trace) or 'slow'
trace = nil
-- A relative expiry made absolute from the frozen clock may already be past when the write runs
-- (the reference ran first and took a millisecond): Redis then deletes the key at once, where
-- the other side's key lives on, expired, until this script ends. To anyone after this script
-- both are gone, so dump() counts a key whose expiry is at or before this real now as gone.
local now = real.call('TIME')
real_now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)

-- A shadow hit answers as the enforced one with allowed 1, "" and 1 (2 when the enforced hit
-- wrote its automatic ban), and leaves the state keys as it did. Where a ban was written, the
-- candidate's other keys are as they were and its windows keep their expiry.
local function shadow_difference()
  local expected = reply_r
  local banned = type(reply_r) == 'table' and not reply_r.err and reply_r[2] == 'deny'
    and (argv[6] ~= '0' or argv[7] == 'midnight')
  if type(reply_r) == 'table' and not reply_r.err then
    expected = { 1, unpack(reply_r, 2, 7) }
    expected[8], expected[9] = '', banned and 2 or 1
  end
  local want, got = { 'reply' }, { 'reply' }
  serialize(expected, want)
  serialize(reply_n, got)
  for i = 3, 2 + n do
    local r, c = {}, {}
    dump(ARGV[i], r)
    dump(candidate_key(ARGV[i]), c)
    r, c = table.concat(r, ' '), table.concat(c, ' ')
    if banned and ARGV[i]:find(':%l%l:%d+$') then
      r, c = r:gsub(' at %-?%d+', '', 1), c:gsub(' at %-?%d+', '', 1)
    elseif banned then
      r = shadow_before[i]:gsub('tgN:', 'tgR:')
    end
    want[#want + 1], got[#got + 1] = r, c
  end
  local text_r, text_n = table.concat(want, ' '), table.concat(got, ' '):gsub('tgN:', 'tgR:')
  if text_r == text_n then return 'same slow ' .. string.sub(text_n, 7, 60) end
  return 'diff\n' .. text_r .. '\n' .. text_n
end
if ARGV[1] == 'shadow' then return shadow_difference() end

for i = 3, 2 + n do
  dump(ARGV[i], out_r)
  dump(candidate_key(ARGV[i]), out_n)
end
local text_r, text_n = table.concat(out_r, ' '), table.concat(out_n, ' '):gsub('tgN:', 'tgR:')
if text_r == text_n then return 'same ' .. path .. ' ' .. string.sub(text_r, 7, 60) end   -- the start of the reply, for the tally
return 'diff\n' .. text_r .. '\n' .. text_n
