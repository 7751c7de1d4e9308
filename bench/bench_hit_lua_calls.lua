-- What the pieces of a hit.lua fast path cost inside Redis: each piece runs 200,000 times in a
-- loop in this one script and the reply gives ns per run. Run it on a private server with the
-- keys and arguments of a plain sliding-window hit (see bench/bench_hit_lua.sh), e.g.
--   redis-cli -p 7493 EVAL "$(cat bench/bench_hit_lua_calls.lua)" 5 'tg:{u}:ban' 'tg:{u}:a:ban' \
--     'tg:{u}:audit' 'tg:audit' 'tg:{u}:a:sw:3600000' hit sliding_window 1 0 0 0 '' 0 u a '' \
--     first_hit 1000000000 3600000
-- It writes nothing (the ACL checks only ask).
local RUNS = 200000
local NOT_PLAIN = '[^%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]'
local function plain_int(s) if #s >= 1 and #s <= 16 and not s:find('%D') then return tonumber(s) end end

local function ns_per_run(piece)
  local from = redis.call('TIME')
  for _ = 1, RUNS do piece() end
  local to = redis.call('TIME')
  return math.floor(((to[1] - from[1]) * 1e6 + (to[2] - from[2])) * 1000 / RUNS)
end

local pieces = {
  { 'nothing', function() end },
  { 'five digit-only numbers', function()
    return plain_int(ARGV[3]), plain_int(ARGV[5]), plain_int(ARGV[6]), plain_int(ARGV[13]), plain_int(ARGV[14])
  end },
  { 'two ids need no escaping', function() return ARGV[9]:find(NOT_PLAIN), ARGV[10]:find(NOT_PLAIN) end },
  { 'the keys built and compared', function()
    local base = KEYS[1]:sub(1, #KEYS[1] - #ARGV[9] - 6) .. '{' .. ARGV[9] .. '}'
    local action_base = base .. ':' .. ARGV[10]
    return KEYS[1] == base .. ':ban' and KEYS[2] == action_base .. ':ban' and KEYS[3] == base .. ':audit'
      and KEYS[5] == action_base .. ':sw:' .. ARGV[14]
  end },
  { 'a reply table', function() return { 1, 'ok', 5, 6, 7, 8, 0 } end },
  { 'a closure', function() return function() return RUNS end end },
  { 'string.format', function() return string.format('%016d', 12345) end },
  { 'EXISTS', function() return redis.call('EXISTS', KEYS[1], KEYS[2]) end },
  { 'PTTL', function() return redis.call('PTTL', KEYS[5]) end },
  { 'TIME', function() return redis.call('TIME') end },
  { 'HMGET', function() return redis.pcall('HMGET', KEYS[5], 'start', 'cur', 'prev') end },
  { 'ZRANGE -1 -1 WITHSCORES', function() return redis.pcall('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES') end },
  { 'acl_check_cmd PEXPIRE', function() return redis.acl_check_cmd('PEXPIRE', KEYS[5], 7200000) end },
  { 'acl_check_cmd HSET of 3 fields', function()
    return redis.acl_check_cmd('HSET', KEYS[5], 'start', 1795446000000, 'cur', 5, 'prev', 0)
  end },
}
local reply = {}
for _, piece in ipairs(pieces) do reply[#reply + 1] = piece[1] .. ': ' .. ns_per_run(piece[2]) .. ' ns' end
return reply
