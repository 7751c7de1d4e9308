--[[ override_set.lua: give one user other limits for an action, or none (an exemption), for a while.

KEYS[1]  the user's overrides hash <p>:{<user>}:overrides
KEYS[2]  user audit stream <p>:{<user>}:audit
KEYS[3]  global audit stream <p>:audit; "" or KEYS[2] again = no global mirror (Redis Cluster)
KEYS[4]  override index <p>:overrides (zset); "" or KEYS[1] again = none (Redis Cluster: the
         client then updates <p>:{:}:overrides itself with the reply's key_end)

ARGV[1]  raw user id, 1..1024 bytes
ARGV[2]  raw action id (1..1024 bytes), or "*" = every action of the user
ARGV[3]  actor, required
ARGV[4]  reason, required (at most 4096 bytes)
ARGV[5]  kind: "limit" | "unlimited"
ARGV[6]  windows: limit: "<window_ms>:<limit>,..." (1..8, window_ms 1..31536000000 all different,
         limit 1..1e9); unlimited: ""
ARGV[7]  duration_ms (1..3153600000000), 0 = none
ARGV[8]  until_ms, absolute epoch ms in the future, 0 = none; both 0 = permanent, both set = TG_INVALID
ARGV[9]  events channel, "" = do not publish

Writes the field (the action escaped as in keys, or "*") with
"<kind> <until_ms> <set_ms> <windows|-> <bytes of actor> <actor><reason>", replacing the previous
one; drops the fields past their end; the key expires at its latest end (no TTL while a field is
permanent); the index holds the escaped user scored by that end (+inf when permanent); appends
an audit entry "override" (detail "limit <windows>" | "unlimited") to the user's stream and to
the global one; publishes "override\n<byte length of user>\n<user><action>". All of it or nothing.
Reply: { until_ms (0 = permanent), set_ms, key_end (-1 = permanent, else epoch ms) }
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key of the wrong type),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
local SCRIPT = 'override_set'
--@include "override/common.lua"

---------------------------------------------------------------- arguments
if #ARGV ~= 9 then return redis.error_reply('TG_INVALID override_set takes 4 keys and 9 arguments') end
local user, action, actor, reason, kind, windows, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[9]
local escaped_user, index, bad = override_keys(user)
if bad then return bad end
bad = required('actor', actor, 'reason', reason)
if bad then return bad end
if #action < 1 or #action > 1024 then return redis.error_reply('TG_INVALID action id must be 1..1024 bytes') end
if #actor > 1024 or #reason > 4096 then return redis.error_reply('TG_INVALID actor or reason too long') end
if kind ~= 'limit' and kind ~= 'unlimited' then return redis.error_reply('TG_INVALID kind must be limit or unlimited') end
if kind == 'unlimited' and windows ~= '' then return redis.error_reply('TG_INVALID an unlimited override has no windows') end
if kind == 'limit' then
  local seen, n = {}, 0
  for pair in (windows .. ','):gmatch('([^,]*),') do
    local ms, limit = to_int(pair:match('^(%d+):'), 11), to_int(pair:match(':(%d+)$'), 10)
    n = n + 1
    if not ms or not limit or ms < 1 or ms > MAX_WINDOW_MS or limit < 1 or limit > 1000000000 or seen[ms] or n > 8 then
      return redis.error_reply('TG_INVALID windows must be 1..8 "<window_ms>:<limit>" pairs (window_ms 1..'
        .. int(MAX_WINDOW_MS) .. ', all different; limit 1..1000000000), got "' .. windows:sub(1, 200) .. '"')
    end
    seen[ms] = true
  end
end
local duration_ms, until_ms = to_int(ARGV[7], 17), to_int(ARGV[8], 17)
if not duration_ms or duration_ms > MAX_BAN_MS then
  return redis.error_reply('TG_INVALID duration_ms must be an integer in [0, ' .. int(MAX_BAN_MS) .. ']')
end
if not until_ms or until_ms > MAX_EPOCH_MS then return redis.error_reply('TG_INVALID until_ms must be an epoch time in ms, or 0') end
if duration_ms > 0 and until_ms > 0 then return redis.error_reply('TG_INVALID give duration_ms or until_ms, not both') end
local now = now_ms()
if until_ms > 0 and until_ms <= now then return redis.error_reply('TG_INVALID until_ms ' .. ARGV[8] .. ' is not in the future') end
if duration_ms > 0 then until_ms = now + duration_ms end

local key, user_stream, global = KEYS[1], KEYS[2], KEYS[3]
bad = expect_type(key, 'hash') or expect_type(user_stream, 'stream')
  or (global ~= '' and expect_type(global, 'stream')) or (index ~= '' and expect_type(index, 'zset'))
if bad then return bad end

---------------------------------------------------------------- the writes
local field = action == '*' and '*' or escape(action)
local writes = { { 'HSET', key, field, string.format('%s %s %s %s %d %s%s', kind, int(until_ms), int(now),
  kind == 'limit' and windows or '-', #actor, actor, reason) } }
local key_end = override_expiry(writes, key, index, escaped_user, field, until_ms, now)
audit(writes, user_stream, global, { 'event', 'override', 'user', user, 'action', action, 'actor', actor,
  'reason', reason, 'until_ms', int(until_ms), 'detail', kind == 'limit' and 'limit ' .. windows or 'unlimited' })
publish(writes, channel, 'override', user, action)
return apply(writes) or { until_ms, now, key_end }
