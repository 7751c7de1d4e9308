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

--@include "includes/write_prologue.lua"

local MAX_ID_BYTES = 256
local MAX_PAYLOAD_BYTES = 65536
local FORGET_MS = 600000          -- entries older than this are dropped; both keys' TTL
local PRUNE_BATCH = 100           -- bounded work per call; the next call takes the rest

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
