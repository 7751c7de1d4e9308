-- bench/bench_hit_ladder.sh, step 6 of the ladder from the minimal fixed window
-- (bench/reference/fixed_window.lua) to hit.lua's fixed-window fast path.
-- This step: + id and key checks: the three keys name one user, action, algorithm and window.
-- KEYS and ARGV are hit.lua's short form (lua/README.md); each step adds one part to the last.
local A, K = ARGV, KEYS
local user_ban, action_ban = K[1], K[2]
local cost_s, limit_s, window, key = A[3], A[4], A[5], K[3]
if A[1] ~= 'hit' or #cost_s > 9 or #limit_s > 10 then return -4 end
local found, _, head, user_at, user_end, action, kind, w =
  (user_ban .. ' ' .. action_ban .. ' ' .. key .. ' ' .. cost_s .. ' ' .. limit_s):find(
    '^([^{]+:{()[%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]+()}:)ban %1([%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]+):ban %1%4:(%l%l):([1-9]%d*) [1-9]%d* [1-9]%d*$')
if not found or kind ~= 'fw' or w ~= window or #w > 10 or #user_ban ~= #head + 3 or #action_ban ~= #head + #action + 4
  or #key ~= #head + #action + 4 + #w or user_end - user_at > 1024 or #action > 1024 then
  return -5
end
local key = KEYS[3]
local found = redis.call('EXISTS', KEYS[1], KEYS[2], key, key, key)
if found ~= 0 and found ~= 3 then return -1 end
if not redis.acl_check_cmd('SET', key, ARGV[3], 'KEEPTTL') then return -2 end
local count = redis.pcall('INCRBY', key, ARGV[3])
if type(count) ~= 'number' then return -3 end
local limit = ARGV[4] + 0
local ttl = redis.call('PTTL', key)
if ttl < 0 then redis.call('PEXPIRE', key, ARGV[5]) end
return { 1, 'ok', count, limit, limit - count, ttl, 0 }
