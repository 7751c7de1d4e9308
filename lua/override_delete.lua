--[[ override_delete.lua: end one override of a user now, leaving a trail even when there was none.

KEYS[1..4]  as override_set.lua: overrides hash, user audit stream, global audit stream ("" or
            the user's stream again = none), override index ("" or the hash again = none)

ARGV[1]  raw user id, 1..1024 bytes
ARGV[2]  raw action id, or "*" (the every-action override; the others stay)
ARGV[3]  actor, required
ARGV[4]  reason, required (at most 4096 bytes)
ARGV[5]  events channel, "" = do not publish

Deletes the field, drops the fields past their end, sets the key's expiry and the index as
override_set.lua does (the key and the user's index entry go when nothing is left); appends an
audit entry "override_delete" (detail "deleted=0|1") to the user's stream and to the global one;
publishes "override\n<byte length of user>\n<user><action>". All of it or nothing.
Reply: { deleted 1|0, key_end (-1 = permanent, 0 = nothing left, else epoch ms) }
Errors: TG_INVALID, TG_CORRUPT, TG_NOPERM (nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
local SCRIPT = 'override_delete'
--@include "override/common.lua"

if #ARGV ~= 5 then return redis.error_reply('TG_INVALID override_delete takes 4 keys and 5 arguments') end
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local escaped_user, index, bad = override_keys(user)
if bad then return bad end
bad = required('actor', actor, 'reason', reason)
if bad then return bad end
if #action < 1 or #action > 1024 then return redis.error_reply('TG_INVALID action id must be 1..1024 bytes') end
if #actor > 1024 or #reason > 4096 then return redis.error_reply('TG_INVALID actor or reason too long') end

local key, user_stream, global = KEYS[1], KEYS[2], KEYS[3]
bad = expect_type(key, 'hash') or expect_type(user_stream, 'stream')
  or (global ~= '' and expect_type(global, 'stream')) or (index ~= '' and expect_type(index, 'zset'))
if bad then return bad end

local field = action == '*' and '*' or escape(action)
local deleted = redis.call('HEXISTS', key, field)
local writes = {}
if deleted == 1 then writes[1] = { 'HDEL', key, field } end
local key_end = override_expiry(writes, key, index, escaped_user, field, nil, now_ms())
audit(writes, user_stream, global, { 'event', 'override_delete', 'user', user, 'action', action, 'actor', actor,
  'reason', reason, 'detail', 'deleted=' .. deleted })
publish(writes, channel, 'override', user, action)
return apply(writes) or { deleted, key_end }
