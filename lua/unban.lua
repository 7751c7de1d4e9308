--[[ unban.lua: lift bans, leaving a trail even when there was nothing to lift.

KEYS[1]     user audit stream <p>:{<user>}:audit
KEYS[2]     global audit stream <p>:audit; "" or KEYS[1] again = no global mirror (Redis Cluster)
KEYS[3..]   the ban hashes to delete (found by the client: the user-wide one and/or action ones); may be none

ARGV[1]  raw user id (for the audit entries and the event)
ARGV[2]  raw action id; "" = all actions
ARGV[3]  actor, required
ARGV[4]  reason, required
ARGV[5]  events channel, "" = do not publish

Deletes the ban keys, appends an audit entry "unban" (with field count = keys deleted, even 0) to the
user's stream and to the global one, publishes "unban\n<byte length of user>\n<user><action>".
All of it or nothing.
Reply: number of ban keys deleted.
Errors: TG_INVALID (bad argument), TG_CORRUPT (an audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"
--@include "includes/clear_keys.lua"

return clear_keys('unban', true)
