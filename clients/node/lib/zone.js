'use strict';
// hit.lua's ARGV[8] (lua/README.md, "Time zones"): the UTC offsets of a policy's IANA zone,
// from 2 days back to 40 days ahead, computed with the ICU zone database Node ships with and
// cached for the day, as the C++ client does with QTimeZone.
const DAY_MS = 86400000;
const HOUR_MS = 3600000;
const formatters = new Map();
const cache = new Map(); // zone -> { day, text }

function formatter(zone) {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether Node knows the zone (an IANA name). */
function isKnownZone(zone) {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC in ms at `utcMs` (whole seconds, as zones are). */
function offsetAt(zone, utcMs) {
  const at = Math.floor(utcMs / 1000) * 1000;
  const parts = {};
  for (const part of formatter(zone).formatToParts(at)) parts[part.type] = Number(part.value);
  const local = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return local - at;
}

/** "<offset>,<utc_ms>:<offset>,..." for [fromMs, toMs]. */
function zoneOffsets(zone, fromMs, toMs) {
  let offset = offsetAt(zone, fromMs);
  let text = String(offset);
  // Zones change at most a few times a year and never twice within an hour: sample hourly,
  // then find each change to the second.
  for (let t = fromMs; t < toMs; t += HOUR_MS) {
    const next = Math.min(t + HOUR_MS, toMs);
    const nextOffset = offsetAt(zone, next);
    if (nextOffset === offset) continue;
    let low = t, high = next; // offset at low is the old one, at high the new one
    while (high - low > 1000) {
      const middle = Math.floor((low + high) / 2000) * 1000;
      if (middle <= low) break;
      if (offsetAt(zone, middle) === offset) low = middle; else high = middle;
    }
    text += `,${high}:${nextOffset}`;
    offset = nextOffset;
  }
  return text;
}

function zoneOffsetsAroundNow(zone) {
  const now = Date.now();
  const day = Math.floor(now / DAY_MS);
  const cached = cache.get(zone);
  if (cached && cached.day === day) return cached.text;
  const text = zoneOffsets(zone, now - 2 * DAY_MS, now + 40 * DAY_MS);
  cache.set(zone, { day, text });
  return text;
}

module.exports = { isKnownZone, offsetAt, zoneOffsets, zoneOffsetsAroundNow };
