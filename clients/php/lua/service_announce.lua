--[[ service_announce.lua: a tollgated instance says it is alive (announce) or leaving (withdraw).

KEYS[1]  registry hash <p>:{:}:services: instance id -> JSON payload (lua/README.md, "Service
         registry": the payload's fields)
KEYS[2]  last-seen zset <p>:{:}:services:seen: instance id -> last-seen ms by the server's clock
         (both keys carry the hash tag {:} on a single server and on a Redis Cluster alike, so
         they always share one slot)

ARGV[1]  "announce" | "withdraw"
ARGV[2]  instance id, 1..256 bytes ("<host>:<pid>:<8 hex>" by tollgated)
ARGV[3]  announce only: the payload, a JSON object of at most 65536 bytes

announce: HSET KEYS[1] id payload, ZADD KEYS[2] now id. withdraw: HDEL and ZREM of the id.
Both first drop up to 100 entries last seen more than 10 minutes ago (from both keys), then
PEXPIRE both keys to 10 minutes: the registry never outlives its instances and never exists
without a TTL. No audit entry: this is no user's write but a heartbeat, every few seconds per
instance, that leaves nothing behind once its instance is gone.
Reply: the server's now in ms (the score written).
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key holds another type),
        TG_NOPERM (the ACL user may not run one of the writes; nothing is written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

-- What every write script starts with: the contract query, then the shared constants, argument
-- and key checks, the write plan, the audit writer and the events.
if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

-- Bounds and lifetimes the scripts share (lua/README.md).
local MAX_BAN_MS = 3153600000000         -- a ban lasts at most 100 years
local MAX_WINDOW_MS = 31536000000        -- a window is at most a year long
local AUDIT_TTL_MS = 7776000000          -- a user's history lives 90 days after its last entry
local GLOBAL_AUDIT_LEN = 100000          -- MAXLEN ~ of the global audit stream (a user's: 1000)
-- Argument checks: each returns a TG_INVALID reply for the caller to return, or nil.

local function int(x) return string.format('%d', x) end

-- A non-negative integer of at most `digits` digits, or nil.
local function to_int(s, digits)
  if s and #s <= digits and s:match('^%d+$') then return tonumber(s) end
  return nil
end

-- required('actor', actor, 'reason', reason): the first of these that is empty.
local function required(...)
  local named = { ... }
  for i = 1, #named, 2 do
    if named[i + 1] == '' then return redis.error_reply('TG_INVALID ' .. named[i] .. ' is required') end
  end
end
-- A key of ours holding another type is refused by name (TG_CORRUPT), before any write.
local function expect_type(key, wanted)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then
    return redis.error_reply('TG_CORRUPT key ' .. key .. ' is a ' .. kind .. ', expected a ' .. wanted)
  end
end
-- The write plan: a script queues every write as { command, key, ... } while it reads, then
-- applies them all only when this ACL user may run each one, or none (TG_NOPERM, nothing
-- written). Never a change without its audit entry.
local function apply(writes)
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
        '; nothing was written')
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end
-- The audit writer (lua/README.md, "Global audit stream"): an entry { field, value, ... } queued
-- into the write plan. A global stream that is "" or the call's own key (`besides`) is off.
local function audit_global(writes, global, entry, besides)
  if global ~= '' and global ~= besides then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', int(GLOBAL_AUDIT_LEN), '*', unpack(entry) }
  end
end

-- The user's stream (MAXLEN ~ 1000, expiring 90 days after its last entry) and the global one.
local function audit(writes, user_stream, global, entry)
  writes[#writes + 1] = { 'XADD', user_stream, 'MAXLEN', '~', '1000', '*', unpack(entry) }
  writes[#writes + 1] = { 'PEXPIRE', user_stream, int(AUDIT_TTL_MS) }
  audit_global(writes, global, entry, user_stream)
end
-- The event (lua/README.md, "Events") queued into the write plan when a channel is given:
-- "<event>\n<byte length of user>\n<user><action>", the length keeping ids with newlines apart.
local function publish(writes, channel, event, user, action)
  if channel ~= '' then
    writes[#writes + 1] = { 'PUBLISH', channel, event .. '\n' .. #user .. '\n' .. user .. action }
  end
end

local MAX_ID_BYTES = 256
local MAX_PAYLOAD_BYTES = 65536
local FORGET_MS = 600000          -- entries older than this are dropped; both keys' TTL
local PRUNE_BATCH = 100           -- bounded work per call; the next call takes the rest

local function invalid(msg) return redis.error_reply('TG_INVALID ' .. msg) end
local registry, seen = KEYS[1] or '', KEYS[2]
local mode, id, payload = ARGV[1], ARGV[2] or '', ARGV[3]
if #KEYS ~= 2 or not registry:match('^[^{]+:{:}:services$') or seen ~= registry .. ':seen' then
  return invalid('service_announce takes 2 keys: <p>:{:}:services and <p>:{:}:services:seen')
end
if (mode ~= 'announce' or #ARGV ~= 3) and (mode ~= 'withdraw' or #ARGV ~= 2) then
  return invalid('service_announce takes "announce", an id and a payload, or "withdraw" and an id')
end
if id == '' or #id > MAX_ID_BYTES then
  return invalid('the instance id must be 1 to ' .. MAX_ID_BYTES .. ' bytes, not ' .. #id)
end
if mode == 'announce' then
  if #payload > MAX_PAYLOAD_BYTES then
    return invalid('the payload is ' .. #payload .. ' bytes; at most ' .. MAX_PAYLOAD_BYTES .. ' are allowed')
  end
  local ok, decoded = pcall(cjson.decode, payload)
  if not ok or type(decoded) ~= 'table' or not payload:match('^%s*{') then
    return invalid('the payload must be a JSON object')
  end
end
local bad = expect_type(registry, 'hash') or expect_type(seen, 'zset')
if bad then return bad end

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local writes = {}
local gone = redis.call('ZRANGEBYSCORE', seen, '-inf', '(' .. int(now_ms - FORGET_MS),
                        'LIMIT', 0, PRUNE_BATCH)
if #gone > 0 then
  writes[#writes + 1] = { 'HDEL', registry, unpack(gone) }
  writes[#writes + 1] = { 'ZREM', seen, unpack(gone) }
end
if mode == 'announce' then
  writes[#writes + 1] = { 'HSET', registry, id, payload }
  writes[#writes + 1] = { 'ZADD', seen, int(now_ms), id }
else
  writes[#writes + 1] = { 'HDEL', registry, id }
  writes[#writes + 1] = { 'ZREM', seen, id }
end
writes[#writes + 1] = { 'PEXPIRE', registry, int(FORGET_MS) }
writes[#writes + 1] = { 'PEXPIRE', seen, int(FORGET_MS) }
return apply(writes) or now_ms
