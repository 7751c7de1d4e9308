--[[ stats.lua: add hit outcomes to the per-action per-second statistics the console charts.

KEYS[1]   stats hash of the action   <p>:stats:<action>
ARGV      one hit:  ARGV[1] tier "ok" | "warn" | "deny" | "banned" (hit.lua's reply),
                    ARGV[2] cost, integer >= 1
          or added up by the client: ARGV[1] "counts", then ARGV[2] hits, ARGV[3] cost,
                    ARGV[4] warn, ARGV[5] denied (deny + banned), ARGV[6] banned,
                    optional ARGV[7] automatic bans created, ARGV[8] manual bans created,
                    ARGV[9] would deny, ARGV[10] would ban (shadow policies' hits that
                    enforcing would have denied, and of those the ones it would have banned),
                    integers >= 0 with warn + denied + would deny <= hits, banned <= denied,
                    automatic bans <= denied - banned (each one came with a deny) and
                    would ban <= would deny

Reply: the server time in seconds the hits were counted under.
Layout: a ring of 120 one-second slots, fields "<slot>:t" (the second the slot holds),
"<slot>:h" hits, "<slot>:c" cost, "<slot>:w" warn, "<slot>:d" denied (deny + banned),
"<slot>:b" banned, "<slot>:wd" would deny, "<slot>:wb" would ban, with slot = second % 120.
A slot is cleared when a new second claims it, so the hash stays bounded.
History, the console's charts: "s<second % 300>" for each of the last 300 seconds and
"m<minute % 1440>" for each of the last 1,440 minutes (minute = floor(second / 60)), each
"<second or minute> <hits> <cost> <warn> <denied> <banned>", followed by " <would deny> <would ban>"
once either is not 0 in that second or minute, integers with one space between;
a field holding an older second or minute is read as zeros and restarted by the next call.
The key expires 25 hours after the last call.
Totals since the key was made, for the metrics exporter (counters a scrape reads in one HMGET,
the same whichever exporter asks): "total:h", "total:c", "total:w", "total:d", "total:b" as above,
"total:ab" automatic and "total:mb" manual bans created, "total:wd" would deny and "total:wb"
would ban. A call with no hits (bans only) leaves the ring alone.
Call it after hit.lua (it is separate so Redis Cluster keeps every hit in its user's slot).
A client that adds its outcomes up and calls this at most once a second per action (as the
C++ Limiter does) keeps the statistics off the hot path: the hits land in the second of the call.

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

local function count(text, max)
  local n = text and text:match('^%d+$') and #text <= 15 and tonumber(text)
  if n and n <= max then return n end
end

local hits, cost, warn, denied, banned
local auto_bans, manual_bans, would_deny, would_ban = 0, 0, 0, 0
local tier = ARGV[1]
if tier == 'counts' then
  hits, cost = count(ARGV[2], 1e12), count(ARGV[3], 1e15)
  warn, denied, banned = count(ARGV[4], 1e12), count(ARGV[5], 1e12), count(ARGV[6], 1e12)
  auto_bans, manual_bans = count(ARGV[7] or '0', 1e12), count(ARGV[8] or '0', 1e12)
  would_deny, would_ban = count(ARGV[9] or '0', 1e12), count(ARGV[10] or '0', 1e12)
  if not (hits and cost and warn and denied and banned and auto_bans and manual_bans and would_deny and would_ban)
     or warn + denied + would_deny > hits or banned > denied or auto_bans > denied - banned
     or would_ban > would_deny then
    return redis.error_reply('TG_INVALID counts needs hits cost warn denied banned ' ..
                             '[auto_bans manual_bans [would_deny would_ban]]: integers >= 0, ' ..
                             'warn + denied + would_deny <= hits, banned <= denied, ' ..
                             'auto_bans <= denied - banned, would_ban <= would_deny')
  end
else
  if tier ~= 'ok' and tier ~= 'warn' and tier ~= 'deny' and tier ~= 'banned' then
    return redis.error_reply('TG_INVALID tier must be ok, warn, deny or banned')
  end
  cost = count(ARGV[2], 1000000000)
  if not cost or cost < 1 then
    return redis.error_reply('TG_INVALID cost must be an integer from 1 to 1000000000')
  end
  hits = 1
  warn = tier == 'warn' and 1 or 0
  denied = (tier == 'deny' or tier == 'banned') and 1 or 0
  banned = tier == 'banned' and 1 or 0
end

local now = redis.call('TIME')
local second = tonumber(now[1])
local slot = tostring(second % 120)

-- The ring slot and the running total of each figure, skipping zeros.
local function add(suffix, n)
  if n > 0 then
    redis.call('HINCRBY', KEYS[1], slot .. suffix, n)
    redis.call('HINCRBY', KEYS[1], 'total' .. suffix, n)
  end
end

if hits > 0 then
  if redis.call('HGET', KEYS[1], slot .. ':t') ~= tostring(second) then
    redis.call('HSET', KEYS[1], slot .. ':t', second, slot .. ':h', 0, slot .. ':c', 0,
               slot .. ':w', 0, slot .. ':d', 0, slot .. ':b', 0, slot .. ':wd', 0, slot .. ':wb', 0)
  end
  add(':h', hits)
  add(':c', cost)
  add(':w', warn)
  add(':d', denied)
  add(':b', banned)
  add(':wd', would_deny)
  add(':wb', would_ban)
end
-- The history beside the ring: one field per second of the last 300 ("s<second % 300>") and
-- one per minute of the last 1,440 ("m<minute % 1440>", minute = floor(second / 60)), each
-- "<second or minute> <hits> <cost> <warn> <denied> <banned>[ <would deny> <would ban>]". A field still holding an older
-- second or minute starts again from 0, so neither ring needs clearing; a range is one HMGET.
local function digits(n)
  if n < 1e14 then return tostring(n) end
  return string.format('%.0f', n)
end
local function roll(field, at)
  local held = redis.call('HGET', KEYS[1], field)
  local h, c, w, d, b, wd, wb = 0, 0, 0, 0, 0, 0, 0
  if held then
    local t, h0, c0, w0, d0, b0, rest = held:match('^(%d+) (%d+) (%d+) (%d+) (%d+) (%d+)(.*)$')
    local wd0, wb0 = (rest or ''):match('^ (%d+) (%d+)$')
    if t == at and (rest == '' or wd0) then
      h, c, w, d, b = tonumber(h0), tonumber(c0), tonumber(w0), tonumber(d0), tonumber(b0)
      wd, wb = tonumber(wd0 or '0'), tonumber(wb0 or '0')
    end
  end
  wd, wb = wd + would_deny, wb + would_ban
  redis.call('HSET', KEYS[1], field, at .. ' ' .. digits(h + hits) .. ' ' .. digits(c + cost) ..
             ' ' .. digits(w + warn) .. ' ' .. digits(d + denied) .. ' ' .. digits(b + banned) ..
             ((wd > 0 or wb > 0) and ' ' .. digits(wd) .. ' ' .. digits(wb) or ''))
end
if hits > 0 then
  roll('s' .. (second % 300), tostring(second))
  local minute = math.floor(second / 60)
  roll('m' .. (minute % 1440), tostring(minute))
end
if auto_bans > 0 then redis.call('HINCRBY', KEYS[1], 'total:ab', auto_bans) end
if manual_bans > 0 then redis.call('HINCRBY', KEYS[1], 'total:mb', manual_bans) end
redis.call('PEXPIRE', KEYS[1], 90000000) -- 25 hours: a day of minutes outlives a quiet night
return second
