'use strict';
// The policy hash <p>:policy:<action> (lua/README.md, "The policy hash"), read as the C++
// Policy::fromFields reads it and checked as Policy::validate checks it.
const { BadPolicyError, ContractError, InvalidError } = require('./errors');
const { checkId } = require('./keys');
const { isKnownZone } = require('./zone');

const SCRIPT_CONTRACT = 3;
const MAX_LIMIT = 1e9;
const MAX_SLIDING_LOG_LIMIT = 100000;
const MAX_WINDOWS = 8;
const DAY_MS = 86400000;
const YEAR_MS = 365 * DAY_MS;
const CALENDAR_WINDOWS = new Set([60000, 3600000, DAY_MS, 7 * DAY_MS]);
const ALGORITHMS = new Set(['fixed_window', 'sliding_log', 'sliding_window', 'token_bucket']);
const FAILURE_MODES = new Set(['allow', 'deny', 'insurance']);

function integer(field, value) {
  const text = String(value).trim();
  if (!/^[+-]?\d+$/.test(text)) throw new BadPolicyError(`policy field '${field}' is not an integer: '${text.slice(0, 40)}'`);
  return Number(text);
}

/** "60000:10,3600000:100" -> [{ windowMs, limit }]; BadPolicyError when malformed. */
function parseWindows(text) {
  return String(text).split(',').map((pair) => {
    const parts = pair.split(':');
    if (parts.length !== 2) throw new BadPolicyError('malformed windows field');
    return { windowMs: integer('windows', parts[0]), limit: integer('windows', parts[1]) };
  });
}

function formatDuration(ms) {
  if (ms <= 0) return '0s';
  if (ms % 1000 !== 0) return `${ms}ms`;
  let out = '';
  let rest = ms;
  for (const [suffix, unit] of [['w', 7 * DAY_MS], ['d', DAY_MS], ['h', 3600000], ['m', 60000], ['s', 1000]]) {
    if (rest >= unit) {
      out += Math.floor(rest / unit) + suffix;
      rest %= unit;
    }
  }
  return out;
}

/** InvalidError naming the first rule the policy breaks (the C++ Policy::validate). */
function validate(policy) {
  const invalid = (message) => new InvalidError(`policy ${policy.action}: ${message}`);
  if (!policy.windows.length) throw invalid('a policy needs at least one limit and window');
  if (policy.windows.length > MAX_WINDOWS) throw invalid(`at most ${MAX_WINDOWS} windows per policy`);
  if (policy.calendarAligned && policy.algorithm !== 'fixed_window') throw invalid('calendar windows need fixed_window');
  const seen = new Set();
  for (const { limit, windowMs } of policy.windows) {
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw invalid(`limit must be between 1 and ${MAX_LIMIT}, got ${limit}`);
    if (!(windowMs >= 1 && windowMs <= YEAR_MS)) throw invalid(`window must be between 1ms and 1 year, got ${windowMs} ms`);
    if (policy.calendarAligned && !CALENDAR_WINDOWS.has(windowMs)) {
      throw invalid(`calendar windows are 1m, 1h, 1d or 1w, got ${formatDuration(windowMs)}`);
    }
    if (seen.has(windowMs)) throw invalid(`window ${formatDuration(windowMs)} appears twice`);
    seen.add(windowMs);
    if (policy.algorithm === 'token_bucket' && limit > windowMs * 1000) {
      throw invalid(`token_bucket refills at most one token per microsecond: limit at most ${windowMs * 1000} for a ${formatDuration(windowMs)} window`);
    }
    if (policy.algorithm === 'sliding_log' && limit > MAX_SLIDING_LOG_LIMIT) {
      throw invalid(`sliding_log keeps one entry per hit: limit at most ${MAX_SLIDING_LOG_LIMIT}`);
    }
  }
  if (!(policy.cost >= 1 && policy.cost <= MAX_LIMIT)) throw invalid(`cost must be between 1 and ${MAX_LIMIT}, got ${policy.cost}`);
  const firstLimit = policy.windows[0].limit;
  if (policy.warn < 0 || (policy.warn > 0 && policy.warn >= firstLimit)) {
    throw invalid(`warn level must be below the limit of the first window (${firstLimit}), got ${policy.warn}`);
  }
  if (policy.banMs < 0 || policy.banMs > 10 * YEAR_MS) throw invalid('ban duration must be between 0 and 10 years');
  if (policy.banMs > 0 && policy.banUntilMidnight) throw invalid("choose a ban duration or 'until midnight', not both");
  if (policy.timeZone !== null && !isKnownZone(policy.timeZone)) {
    throw invalid(`unknown time zone '${policy.timeZone}' (use an IANA name such as Europe/Berlin)`);
  }
  if (policy.message !== undefined && [...policy.message].length > 1000) throw invalid('deny message is longer than 1000 characters');
}

/**
 * A policy from its hash fields (HGETALL, or the same fields given inline; numbers may be
 * numbers). Unknown fields are ignored; a malformed known field is a BadPolicyError, a
 * `contract` this client does not speak a ContractError.
 */
function policyFromFields(action, fields) {
  checkId(action, 'action');
  const policy = {
    action, algorithm: 'fixed_window', windows: [], cost: 1, warn: 0, banMs: 0,
    banUntilMidnight: false, calendarAligned: false, timeZone: 'UTC', tzOffsets: undefined,
    countDenied: false, shadow: false, message: undefined, onError: 'report', revision: 0,
  };
  let hasWindows = false;
  for (const [field, raw] of Object.entries(fields)) {
    const value = String(raw);
    switch (field) {
      case 'algorithm':
        if (value === 'gcra') policy.algorithm = 'token_bucket';
        else if (ALGORITHMS.has(value)) policy.algorithm = value;
        else throw new BadPolicyError(`policy ${action}: unknown algorithm '${value.slice(0, 40)}'`);
        break;
      case 'windows': policy.windows = parseWindows(value); hasWindows = true; break;
      case 'message': policy.message = value; break;
      case 'on_error':
        if (!FAILURE_MODES.has(value)) throw new BadPolicyError(`policy ${action}: unknown on_error '${value.slice(0, 40)}' (allow, deny or insurance)`);
        policy.onError = value;
        break;
      case 'ban_until': policy.banUntilMidnight = value === 'midnight'; break;
      case 'align':
        if (value !== 'first_hit' && value !== 'calendar') throw new BadPolicyError(`policy ${action}: unknown align '${value.slice(0, 40)}'`);
        policy.calendarAligned = value === 'calendar';
        break;
      case 'tz': policy.timeZone = value; break;
      case 'tz_offset_ms':
        // Saved before zones had names: a fixed offset (the zone "UTC+02:00"), passed to
        // hit.lua as it is. `tz_offsets` is for clients without a zone database: Node has one.
        if (!('tz' in fields)) {
          policy.tzOffsets = String(integer(field, value));
          policy.timeZone = null;
        }
        break;
      case 'contract': {
        const written = /^\d+$/.test(value) ? Number(value) : NaN;
        if (!(written >= 1 && written <= SCRIPT_CONTRACT)) {
          throw new ContractError(`policy ${action} was written under script contract ${value.slice(0, 20)}, and this client follows contract ${SCRIPT_CONTRACT}: upgrade the tollgate package to read it`);
        }
        break;
      }
      case 'count_denied': policy.countDenied = value === '1'; break;
      case 'shadow': policy.shadow = value === '1'; break;
      case 'cost': policy.cost = integer(field, value); break;
      case 'warn': policy.warn = integer(field, value); break;
      case 'ban_ms': policy.banMs = integer(field, value); break;
      case 'revision': policy.revision = integer(field, value); break;
      default: break;
    }
  }
  if (!hasWindows) throw new BadPolicyError(`policy ${action} has no windows field`);
  try {
    validate(policy);
  } catch (error) {
    throw new BadPolicyError(error.message, { cause: error });
  }
  return Object.freeze(policy);
}

/** hit.lua's short form serves a policy that can never ban, warn, count a denial or need local time. */
function takesShortForm(policy) {
  return !policy.countDenied && policy.warn === 0 && policy.banMs === 0 && !policy.banUntilMidnight && !policy.calendarAligned;
}

function needsLocalTime(policy) {
  return policy.banUntilMidnight || policy.calendarAligned;
}

function hasBan(policy) {
  return policy.banMs > 0 || policy.banUntilMidnight;
}

/** The policy with a limit override's windows, limits capped as hit.lua caps them. */
function withOverrideWindows(policy, windows) {
  const capped = windows.map(({ windowMs, limit }) => ({
    windowMs,
    limit: policy.algorithm === 'sliding_log' ? Math.min(limit, MAX_SLIDING_LOG_LIMIT)
      : policy.algorithm === 'token_bucket' ? Math.min(limit, windowMs * 1000) : limit,
  }));
  const calendar = policy.calendarAligned && capped.every((w) => CALENDAR_WINDOWS.has(w.windowMs));
  const result = { ...policy, windows: capped, calendarAligned: calendar };
  validate(result);
  return Object.freeze(result);
}

module.exports = {
  SCRIPT_CONTRACT, MAX_LIMIT, policyFromFields, parseWindows, validate, formatDuration,
  takesShortForm, needsLocalTime, hasBan, withOverrideWindows,
};
