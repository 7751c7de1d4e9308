-- ARGV[8]: the offset before the first change, then "utc_ms:offset_ms" changes, ascending.
local function parse_offsets(text)
  local base, rest = text:match('^(%-?%d+)(.*)$')
  local zone = { base = signed_int(base), changes = {} }
  local ok, last, parsed = zone.base and #rest <= 20000, -2 ^ 53, 0
  for at, off, tail in (ok and rest or ''):gmatch(',(%-?%d+):(%-?%d+)()') do
    local change = { at = signed_int(at), off = signed_int(off) }
    ok = ok and change.at and change.off and change.at > last and math.abs(change.off) <= MAX_OFFSET_MS
    last, parsed = change.at or last, tail - 1
    zone.changes[#zone.changes + 1] = change
  end
  if not ok or math.abs(zone.base) > MAX_OFFSET_MS or parsed ~= #rest then
    fail('TG_INVALID', 'utc offsets must be "<offset_ms>[,<utc_ms>:<offset_ms>...]" ascending, |offset| <= 18h, got "'
      .. text:sub(1, 40) .. '"')
  end
  return zone
end

-- The first instant after now_ms at which local time reaches the next multiple of unit_ms (of a
-- week: Monday 00:00; 1970-01-01 was a Thursday). Offset changes on the way are followed, so a
-- day is 23 or 25 hours long across a DST change; when a change skips over the boundary, the
-- period ends at the change. zone nil: UTC.
local function local_boundary(zone, now_ms, unit_ms)
  local off, first, changes = zone and zone.base or 0, 1, zone and zone.changes or {}
  while changes[first] and changes[first].at <= now_ms do
    off = changes[first].off
    first = first + 1
  end
  local lt = now_ms + off
  local d = floor(lt / DAY)
  local target = unit_ms + (unit_ms == WEEK and (d - (d + 3) % 7) * DAY or floor(lt / unit_ms) * unit_ms)
  for i = first, #changes do
    local change = changes[i]
    if target - off <= change.at then break end
    if change.at + change.off >= target then return change.at end
    off = change.off
  end
  return target - off
end
