--[[ delete.lua: delete one key found by the key inspector, leaving a trail in the global audit.

KEYS[1]  the key to delete (anything under the prefix that is not a ban or a counter: those go
         through unban.lua and reset.lua, which also write the user's own audit stream)
KEYS[2]  global audit stream <p>:audit (Redis Cluster: an audit stream in KEYS[1]'s slot, the
         user's <p>:{<user>}:audit or <p>:{:}:audit)

ARGV[1]  raw user id the key belongs to, "" if none (audit entry and event only)
ARGV[2]  raw action id, "" if none
ARGV[3]  actor, required
ARGV[4]  reason, required
ARGV[5]  events channel, "" = do not publish

Deletes KEYS[1], appends "delete_key" to the global audit stream (MAXLEN ~ 100000) with the key
name in field detail, publishes "delete\n<byte length of user>\n<user><action>". All of it or
nothing. Deleting the global audit stream itself leaves it holding just this entry.
Reply: 1 if the key existed, 0 if it was already gone (the entry is written either way).
Errors: TG_INVALID (bad argument), TG_CORRUPT (the audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"

if #KEYS ~= 2 or #ARGV ~= 5 then return redis.error_reply('TG_INVALID delete takes 2 keys and 5 arguments') end
local key, global = KEYS[1], KEYS[2]
local user, action, actor, reason, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local bad = required('actor', actor, 'reason', reason) or (key ~= global and expect_type(global, 'stream'))
if bad then return bad end

local existed = redis.call('EXISTS', key)   -- nothing runs in between: DEL deletes it
local writes = {
  { 'DEL', key },
  -- always into KEYS[2], even when it is the key deleted (it then holds just this entry)
  { 'XADD', global, 'MAXLEN', '~', int(GLOBAL_AUDIT_LEN), '*', 'event', 'delete_key', 'user', user,
    'action', action, 'actor', actor, 'reason', reason, 'until_ms', '0', 'detail', key },
}
publish(writes, channel, 'delete', user, action)
return apply(writes) or existed
