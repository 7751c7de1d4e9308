--[[ repair.lua: find (dry) or fix keys of ours that lost their TTL and would never expire.

KEYS[1]     the user's audit stream <p>:{<user>}:audit of the candidates' hash tag, or "" when the
            candidates have no hash tag (their entry then goes to KEYS[2] only)
KEYS[2]     global audit stream <p>:audit ("" or KEYS[1] again = no global entry, e.g. on a Cluster)
KEYS[3..n]  candidate keys (n >= 3), e.g. one user's keys from a page of a client-side SCAN; with
            KEYS[1] given, each must start with its "<p>:{<user>}:"
ARGV[1]     "dry" (report only) or "fix"
ARGV[2]     actor: who fixes (required with "fix", for the audit entry)
ARGV[3]     reason: why (required with "fix", for the audit entry)

Which keys must expire, and with what TTL:
  state  ...}:<action>:<fw|sl|tb>:<window_ms>   PEXPIRE window_ms
         ...}:<action>:sw:<window_ms>           PEXPIRE 2 * window_ms
         (string for fw and tb, zset for sl, hash for sw; another type is "skipped")
  ban    ...}:<action>:ban or ...}:ban hash     PEXPIREAT until_ms when until_ms > 0 (a past
                                                until_ms deletes it); until_ms 0 = permanent: "ok"
  audit  ...}:audit stream                      PEXPIRE 90 days (the scripts refresh it on every entry)
  overrides ...}:overrides hash                 PEXPIREAT the latest until_ms of its fields (a past
                                                one deletes it); a field with until_ms 0: "ok"
  policy <p>:policy:<action> hash: never expires, "ok"
  anything else (foreign keys, unknown shapes): "skipped"

Reply: one { key, status, ttl_ms } per candidate, in order. status:
  "ok"        has a TTL, or must not expire        ttl_ms = PTTL (-1 = none)
  "missing"   the key does not exist                ttl_ms = -2
  "would_fix" (dry) has no TTL but needs one        ttl_ms = the TTL a fix would set
  "fixed"     (fix) the TTL was set                 ttl_ms = the TTL set (0: an ended ban, deleted)
  "skipped"   not ours or not of the right shape    ttl_ms = PTTL
A fix that changed anything adds one "repair" entry (actor, reason, detail "fixed=<n>: <keys>") to
KEYS[1] and KEYS[2], in the same script as the fixes: both or nothing.
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (an audit key is not a stream), TG_NOPERM
        (fix: the ACL user may not run one of the fixes or audit writes; nothing is written).
        The dry run writes nothing: call it with EVALSHA_RO.

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/write_prologue.lua"

local MAX_NAMED_KEYS = 20       -- the audit entry names this many fixed keys, then a count
local STATE_TYPE = { fw = 'string', sl = 'zset', sw = 'hash', tb = 'string' }

if #KEYS < 3 or (ARGV[1] ~= 'dry' and ARGV[1] ~= 'fix') or #ARGV > 3 then
  return invalid('repair takes an audit stream, the global audit stream and 1+ candidate keys, '
    .. 'and "dry" or "fix" (with actor and reason)')
end
local fix = ARGV[1] == 'fix'
local actor, reason = ARGV[2] or '', ARGV[3] or ''
if fix and (actor == '' or reason == '') then return invalid('a fix needs an actor and a reason') end
local user_audit, global_audit = KEYS[1], KEYS[2]
if global_audit == user_audit then global_audit = '' end
local tag = user_audit:match('^([^{]*:{[^}]*}):audit$')
if user_audit ~= '' and not tag then
  return invalid('KEYS[1] must be a user audit stream "<p>:{<user>}:audit" or ""')
end
if fix and user_audit == '' and global_audit == '' then
  return invalid('a fix needs an audit stream (KEYS[1] or KEYS[2])')
end
for i = 3, #KEYS do
  if tag and KEYS[i]:sub(1, #tag + 1) ~= tag .. ':' then
    return invalid('KEYS[' .. i .. '] is not a key of ' .. tag .. ' (one user per call)')
  end
end
for _, key in ipairs({ user_audit, global_audit }) do
  local kind = key ~= '' and redis.call('TYPE', key).ok or 'none'
  if kind ~= 'none' and kind ~= 'stream' then
    return redis.error_reply('TG_CORRUPT key ' .. key .. ' is a ' .. kind .. ', expected an audit stream')
  end
end

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- For a key without TTL: the TTL in ms it must get and the command setting it, "keep" if it must
-- never expire, or nil if it is not ours.
local function wanted_ttl(key, kind)
  local alg, window = key:match('}:[^:]+:(%a%a):(%d+)$')
  if alg and STATE_TYPE[alg] == kind then
    window = #window <= 12 and tonumber(window) or 0
    if window < 1 or window > MAX_WINDOW_MS then return nil end
    local ttl = alg == 'sw' and 2 * window or window
    return ttl, { 'PEXPIRE', key, int(ttl) }
  end
  if (key:match('}:[^:]+:ban$') or key:match('}:ban$')) and kind == 'hash' then
    local until_ms = redis.call('HGET', key, 'until_ms')
    if not until_ms or not until_ms:match('^%d+$') or #until_ms > 15 then return nil end
    until_ms = tonumber(until_ms)
    if until_ms == 0 then return 'keep' end
    return math.max(until_ms - now_ms, 0), { 'PEXPIREAT', key, int(until_ms) }
  end
  if key:match('}:overrides$') and kind == 'hash' then
    local all, latest = redis.call('HVALS', key), 0
    for _, value in ipairs(all) do
      local until_ms = value:match('^%l+ (%d+) ')
      if not until_ms or #until_ms > 15 then return nil end   -- not an override: not ours to judge
      if until_ms == '0' then return 'keep' end
      latest = math.max(latest, tonumber(until_ms))
    end
    return math.max(latest - now_ms, 0), { 'PEXPIREAT', key, int(latest) }
  end
  if key:match('}:audit$') and kind == 'stream' then
    return AUDIT_TTL_MS, { 'PEXPIRE', key, int(AUDIT_TTL_MS) }   -- 90 days, as the scripts set it
  end
  if key:match(':policy:[^:]+$') and kind == 'hash' then
    return 'keep'
  end
  return nil
end

local results, fixes, named = {}, {}, {}
for i = 3, #KEYS do
  local key = KEYS[i]
  local pttl = redis.call('PTTL', key)
  local status, ttl = 'ok', pttl
  if pttl == -2 then
    status = 'missing'
  elseif pttl == -1 then
    local want, cmd = wanted_ttl(key, redis.call('TYPE', key).ok)
    if want == nil then
      status = 'skipped'
    elseif want ~= 'keep' then
      status, ttl = fix and 'fixed' or 'would_fix', want
      if fix then
        fixes[#fixes + 1] = cmd
        if #named < MAX_NAMED_KEYS then named[#named + 1] = key end
      end
    end
  end
  results[#results + 1] = { key, status, ttl }
end

-- the audit entry of the fixes, in the user's stream and the global one
if #fixes > 0 then
  local detail = 'fixed=' .. #fixes .. ': ' .. table.concat(named, ', ')
  if #fixes > #named then detail = detail .. ' and ' .. (#fixes - #named) .. ' more' end
  local entry = { 'event', 'repair', 'user', '', 'action', '', 'actor', actor, 'reason', reason,
                  'until_ms', '0', 'detail', detail }
  if user_audit ~= '' then
    audit(fixes, user_audit, global_audit, entry)
  else
    audit_global(fixes, global_audit, entry, '')
  end
end

-- all reads above, all writes here (fixes and their audit), each allowed to this ACL user or none
-- made; a PEXPIREAT in the past deletes, which is right for an ended ban
return apply(fixes) or results
