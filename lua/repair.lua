--[[ repair.lua: find (dry) or fix keys of ours that lost their TTL and would never expire.

KEYS[1..n]  candidate keys (n >= 1), e.g. a page of a client-side SCAN
ARGV[1]     "dry" (report only) or "fix"

Which keys must expire, and with what TTL:
  state  ...}:<action>:<fw|sl|tb>:<window_ms>   PEXPIRE window_ms
         ...}:<action>:sw:<window_ms>           PEXPIRE 2 * window_ms
         (string for fw and tb, zset for sl, hash for sw; another type is "skipped")
  ban    ...}:<action>:ban or ...}:ban hash     PEXPIREAT until_ms when until_ms > 0 (a past
                                                until_ms deletes it); until_ms 0 = permanent: "ok"
  audit  ...}:audit stream                      PEXPIRE 90 days (the scripts refresh it on every entry)
  policy <p>:policy:<action> hash: never expires, "ok"
  anything else (foreign keys, unknown shapes): "skipped"

Reply: one { key, status, ttl_ms } per key, in order. status:
  "ok"        has a TTL, or must not expire        ttl_ms = PTTL (-1 = none)
  "missing"   the key does not exist                ttl_ms = -2
  "would_fix" (dry) has no TTL but needs one        ttl_ms = the TTL a fix would set
  "fixed"     (fix) the TTL was set                 ttl_ms = the TTL set (0: an ended ban, deleted)
  "skipped"   not ours or not of the right shape    ttl_ms = PTTL
Errors: TG_INVALID (bad argument), TG_NOPERM (fix: the ACL user may not run one of the fixes; none
        is made). The dry run writes nothing: call it with EVALSHA_RO.
]]

local AUDIT_TTL_MS = 7776000000

local MAX_WINDOW_MS = 31536000000
local STATE_TYPE = { fw = 'string', sl = 'zset', sw = 'hash', tb = 'string' }

if #KEYS < 1 or #ARGV ~= 1 or (ARGV[1] ~= 'dry' and ARGV[1] ~= 'fix') then
  return redis.error_reply('TG_INVALID repair takes 1+ keys and one argument, "dry" or "fix"')
end
local fix = ARGV[1] == 'fix'

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
    return ttl, { 'PEXPIRE', key, ttl }
  end
  if (key:match('}:[^:]+:ban$') or key:match('}:ban$')) and kind == 'hash' then
    local until_ms = redis.call('HGET', key, 'until_ms')
    if not until_ms or not until_ms:match('^%d+$') or #until_ms > 15 then return nil end
    until_ms = tonumber(until_ms)
    if until_ms == 0 then return 'keep' end
    return math.max(until_ms - now_ms, 0), { 'PEXPIREAT', key, until_ms }
  end
  if key:match('}:audit$') and kind == 'stream' then
    return AUDIT_TTL_MS, { 'PEXPIRE', key, AUDIT_TTL_MS }   -- 90 days, as the scripts set it
  end
  if key:match(':policy:[^:]+$') and kind == 'hash' then
    return 'keep'
  end
  return nil
end

local results, fixes = {}, {}
for i, key in ipairs(KEYS) do
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
      if fix then fixes[#fixes + 1] = cmd end
    end
  end
  results[i] = { key, status, ttl }
end

-- all reads above, all writes here, each allowed to this ACL user or none made; a PEXPIREAT in the
-- past deletes, which is right for an ended ban
for _, cmd in ipairs(fixes) do
  cmd[3] = string.format('%d', cmd[3])
  if not redis.acl_check_cmd(unpack(cmd)) then
    return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
      '; nothing was written')
  end
end
for _, cmd in ipairs(fixes) do redis.call(unpack(cmd)) end
return results
