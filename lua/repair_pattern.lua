--[[ repair_pattern.lua: give the TTL an operator names to keys another client wrote without one
(e.g. counters a two-command INCR/EXPIRE left behind), found by a client-side SCAN of a pattern.

KEYS[1]     the audit stream for the entry, in the candidates' slot: a user's <p>:{<user>}:audit,
            or the global <p>:audit (on a Cluster the policy stream <p>:{:}:audit)
KEYS[2..n]  candidate keys (n >= 2)
ARGV[1]     ttl_ms: the TTL to give, 1 .. 315360000000 (ten years)
ARGV[2]     actor: who fixes (required)
ARGV[3]     reason: why (required)
ARGV[4]     the pattern the candidates were found by (named in the audit entry)
ARGV[5]     "user" (KEYS[1] is a user's stream: MAXLEN ~ 1000, expiring 90 days after the entry)
            or "global" (MAXLEN ~ 100000, no TTL)

Reply: one { key, status, ttl_ms } per candidate, in order. status:
  "fixed"     had no TTL; ttl_ms is the TTL set
  "ok"        has a TTL (one set since the SCAN is left alone); ttl_ms = PTTL
  "missing"   the key does not exist; ttl_ms = -2
A call that fixed anything adds one "repair" entry (actor, reason, detail "pattern <pattern>,
ttl <ttl_ms> ms: fixed=<n>: <first 20 keys>[ and <m> more]") to KEYS[1] in the same script as
the fixes: both or nothing.
Errors: TG_INVALID (bad argument), TG_CORRUPT (an audit key is not a stream),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"

local MAX_NAMED_KEYS = 20       -- the audit entry names this many fixed keys, then a count
local MAX_TTL_MS = 315360000000 -- ten years

if #KEYS < 2 or #ARGV ~= 5 or (ARGV[5] ~= 'user' and ARGV[5] ~= 'global') then
  return invalid('repair_pattern takes an audit stream and 1+ candidate keys, and a TTL, an '
    .. 'actor, a reason, the pattern and "user" or "global"')
end
local ttl = to_int(ARGV[1], 12)
if not ttl or ttl < 1 or ttl > MAX_TTL_MS then
  return invalid('the TTL must be 1 to ' .. MAX_TTL_MS .. ' ms')
end
local actor, reason, pattern = ARGV[2], ARGV[3], ARGV[4]
local missing = required('actor', actor, 'reason', reason)
if missing then return missing end
local stream = KEYS[1]
local kind = redis.call('TYPE', stream).ok
if kind ~= 'none' and kind ~= 'stream' then
  return redis.error_reply('TG_CORRUPT key ' .. stream .. ' is a ' .. kind .. ', expected an audit stream')
end

local fixes, results, named, fixed = {}, {}, {}, 0
for i = 2, #KEYS do
  local key = KEYS[i]
  local pttl = redis.call('PTTL', key)
  local status = pttl == -1 and 'fixed' or (pttl == -2 and 'missing' or 'ok')
  if status == 'fixed' then
    fixed = fixed + 1
    if #named < MAX_NAMED_KEYS then named[#named + 1] = key end
    fixes[#fixes + 1] = { 'PEXPIRE', key, ARGV[1] }
    pttl = ttl
  end
  results[#results + 1] = { key, status, pttl }
end
if fixed == 0 then return results end

local detail = 'pattern ' .. pattern .. ', ttl ' .. ttl .. ' ms: fixed=' .. fixed .. ': ' ..
  table.concat(named, ', ')
if fixed > #named then detail = detail .. ' and ' .. (fixed - #named) .. ' more' end
local entry = { 'event', 'repair', 'user', '', 'action', '', 'actor', actor, 'reason', reason,
                'until_ms', '0', 'detail', detail }
if ARGV[5] == 'user' then
  audit(fixes, stream, '', entry)
else
  audit_global(fixes, stream, entry, '')
end

-- all reads above, all writes here (fixes and their audit), each allowed to this ACL user or none
return apply(fixes) or results
