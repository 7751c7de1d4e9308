'use strict';
// hit.lua's and refund.lua's call for one policy with everything policy-constant built once
// (the C++ PreparedHit): a hit only escapes its user, adds the user's keys, the cost and, for
// the full form, the raw id and the zone's offsets. A policy that can never ban, warn, count a
// denial or need local time goes in hit.lua's short form: 2 keys and 9 arguments fewer.
const { escapeId, checkId } = require('./keys');
const { InvalidError } = require('./errors');
const { MAX_LIMIT, takesShortForm, needsLocalTime } = require('./policy');
const { zoneOffsetsAroundNow, isKnownZone } = require('./zone');

class PreparedHit {
  /**
   * @param policy a validated policy (the override's windows when `forOverride`)
   * @param schema the KeySchema of the server's layout
   * @param forOverride the windows are a limit override's: the call carries the marker "override"
   */
  constructor(policy, schema, forOverride = false) {
    this.policy = policy;
    this.schema = schema;
    this.forOverride = forOverride;
    this.short = takesShortForm(policy);
    const action = escapeId(policy.action);
    this.head = `${schema.prefix}:{`;
    this.stateTails = policy.windows.map((w) => schema.stateKey('', action, policy.algorithm, w.windowMs).slice(this.head.length));
    this.actionBanTail = `}:${action}:ban`;
    this.pairs = [];
    for (const w of policy.windows) this.pairs.push(String(w.limit), String(w.windowMs));
    if (forOverride) this.pairs.push('override');
    this.hitMode = policy.shadow ? 'shadow' : 'hit';
    this.policyCost = String(policy.cost);
    this.rules = [policy.countDenied ? '1' : '0', String(policy.warn), String(policy.banMs), policy.banUntilMidnight ? 'midnight' : ''];
    this.align = policy.calendarAligned ? 'calendar' : 'first_hit';
    this.keyCount = (this.short ? 3 : 5) + policy.windows.length;
    this.refundKeyCount = 5 + policy.windows.length; // refund.lua has only the full form
  }

  // The full form's ARGV[8]: the zone's offsets when the policy needs local time.
  offsets() {
    const policy = this.policy;
    if (!needsLocalTime(policy)) return '0';
    if (isKnownZone(policy.timeZone)) return zoneOffsetsAroundNow(policy.timeZone);
    return policy.tzOffsets; // a zone this Node does not know: the offsets saved with the policy
  }

  static checkCost(cost) {
    if (!(Number.isInteger(cost) && cost >= 1 && cost <= MAX_LIMIT)) {
      throw new InvalidError(`cost must be an integer between 1 and ${MAX_LIMIT}, got ${cost}`);
    }
  }

  // The user's keys, as the full form lists them up to the state keys.
  userKeys(user, escaped, cluster) {
    const base = this.head + escaped;
    const audit = `${base}}:audit`;
    return [`${base}}:ban`, base + this.actionBanTail, `${base}}:overrides`, audit, cluster ? audit : this.schema.audit];
  }

  /** KEYS and ARGV of hit.lua for `mode` ('hit' is the policy's: hit or shadow; 'peek'). */
  hitArguments(peek, user, cost) {
    checkId(user, 'user id');
    const units = cost === undefined ? this.policyCost : (PreparedHit.checkCost(cost), String(cost));
    const escaped = escapeId(user);
    const base = this.head + escaped;
    const mode = peek ? 'peek' : this.hitMode;
    const out = [`${base}}:ban`, base + this.actionBanTail, `${base}}:overrides`];
    if (!this.short) {
      const audit = `${base}}:audit`;
      out.push(audit, this.schema.cluster ? audit : this.schema.audit);
    }
    for (const tail of this.stateTails) out.push(base + tail);
    out.push(mode, this.policy.algorithm, units);
    if (!this.short) {
      out.push(...this.rules, this.offsets(), user, this.policy.action, this.schema.events, this.align);
    }
    for (const value of this.pairs) out.push(value);
    return out;
  }

  /** KEYS and ARGV of refund.lua (`mode` refund or penalize). */
  refundArguments(mode, user, cost, actor, reason) {
    checkId(user, 'user id');
    PreparedHit.checkCost(cost);
    const escaped = escapeId(user);
    const base = this.head + escaped;
    const out = this.userKeys(user, escaped, this.schema.cluster);
    for (const tail of this.stateTails) out.push(base + tail);
    out.push(mode, this.policy.algorithm, String(cost), ...this.rules, this.offsets(), user,
      this.policy.action, this.schema.events, this.align, actor, reason, ...this.pairs);
    return out;
  }
}

module.exports = { PreparedHit };
