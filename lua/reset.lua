--[[ reset.lua: forget a user's counters (state keys), leaving a trail.

KEYS[1]     user audit stream <p>:{<user>}:audit
KEYS[2]     global audit stream <p>:audit; "" or KEYS[1] again = no global mirror (Redis Cluster)
KEYS[3..]   the state keys to delete (found by the client); may be none

ARGV[1]  raw user id (for the audit entries and the event)
ARGV[2]  raw action id; "" = all actions
ARGV[3]  actor, required
ARGV[4]  reason, may be empty
ARGV[5]  events channel, "" = do not publish

Deletes the state keys, appends an audit entry "reset" (with field count = keys deleted, even 0) to
the user's stream and to the global one, publishes "reset\n<byte length of user>\n<user><action>".
Bans are not touched: that is unban.lua. All of it or nothing.
Reply: number of keys deleted.
Errors: TG_INVALID (bad argument), TG_CORRUPT (an audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
--@include "includes/clear_keys.lua"

return clear_keys('reset', false)
