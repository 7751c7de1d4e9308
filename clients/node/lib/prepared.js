'use strict';
// hit.lua's and refund.lua's call for one policy with everything policy-constant built once
// (the C++ PreparedHit): a hit only escapes its user, adds the user's keys, the cost and, for
// the full form, the raw id and the zone's offsets. A policy that can never ban, warn, count a
// denial or need local time goes in hit.lua's short form: 2 keys and 9 arguments fewer.
const { escapeId, checkId } = require('./keys');
const { InvalidError } = require('./errors');
const { MAX_LIMIT, takesShortForm, needsLocalTime } = require('./policy');
const { zoneOffsetsAroundNow } = require('./zone');

function bulk(text) {
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

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
    this.text = null; // hitText()'s constant parts, for one script SHA
  }

  /**
   * hit.lua's whole EVALSHA[_RO] as RESP text, everything constant written once per policy
   * (what ioredis would build from the arguments, at a fraction of its cost); null on a Cluster
   * (which routes by the arguments) and for a Buffer id.
   */
  hitText(peek, user, escaped, units, sha) {
    if (this.schema.cluster || typeof user !== 'string') return null;
    const t = this.text !== null && this.text.sha === sha ? this.text : this.prepareText(sha);
    const n = Buffer.byteLength(escaped);
    let out = peek ? t.peekHead : t.hitHead;
    for (let i = 0; i < t.keyTails.length; i++) out += `$${t.keyLengths[i] + n}\r\n${this.head}${escaped}${t.keyTails[i]}`;
    out += peek ? t.peekMode : t.hitMode;
    out += units === undefined ? t.cost : bulk(units);
    if (!this.short) out += t.rules + bulk(this.offsets()) + `$${Buffer.byteLength(user)}\r\n${user}\r\n` + t.ids;
    return out + t.pairs;
  }

  prepareText(sha) {
    const suffixes = ['}:ban', this.actionBanTail, '}:overrides'];
    if (!this.short) suffixes.push('}:audit');
    suffixes.push(...this.stateTails);
    // The full form's KEYS[5], the global audit stream, follows the user's own: constant here.
    const keyTails = suffixes.map((suffix) => `${suffix}\r\n`);
    if (!this.short) keyTails[3] += bulk(this.schema.audit);
    const count = 3 + this.keyCount + 3 + (this.short ? 0 : 9) + this.pairs.length;
    const head = (name) => `*${count}\r\n${bulk(name)}${bulk(sha)}${bulk(String(this.keyCount))}`;
    const policy = this.policy;
    this.text = {
      sha,
      hitHead: head('evalsha'),
      peekHead: head('evalsha_ro'),
      keyTails,
      keyLengths: suffixes.map((suffix) => Buffer.byteLength(this.head + suffix)),
      hitMode: bulk(this.hitMode) + bulk(policy.algorithm),
      peekMode: bulk('peek') + bulk(policy.algorithm),
      cost: bulk(this.policyCost),
      rules: this.rules.map(bulk).join(''),
      ids: [policy.action, this.schema.events, this.align].map(bulk).join(''),
      pairs: this.pairs.map(bulk).join(''),
    };
    return this.text;
  }

  // The full form's ARGV[8]: the zone's offsets when the policy needs local time.
  offsets() {
    const policy = this.policy;
    if (!needsLocalTime(policy)) return '0';
    // A policy of the fixed offset saved before zones had names has no zone, only that offset.
    return policy.timeZone === null ? policy.tzOffsets : zoneOffsetsAroundNow(policy.timeZone);
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

  /**
   * numkeys, KEYS and ARGV of hit.lua for a checked user id, `escaped` its escaped form; `units` the
   * cost as text (undefined: the policy's). `peek` sends mode peek, else the policy's (hit or shadow).
   */
  hitArguments(peek, user, escaped, units) {
    const base = this.head + escaped;
    // The first element is left for the script's SHA or source (the caller's choice).
    const out = [undefined, this.keyCount, `${base}}:ban`, base + this.actionBanTail, `${base}}:overrides`];
    if (!this.short) {
      const audit = `${base}}:audit`;
      out.push(audit, this.schema.cluster ? audit : this.schema.audit);
    }
    for (let i = 0; i < this.stateTails.length; i++) out.push(base + this.stateTails[i]);
    out.push(peek ? 'peek' : this.hitMode, this.policy.algorithm, units === undefined ? this.policyCost : units);
    if (!this.short) {
      out.push(this.rules[0], this.rules[1], this.rules[2], this.rules[3], this.offsets(), user,
        this.policy.action, this.schema.events, this.align);
    }
    for (let i = 0; i < this.pairs.length; i++) out.push(this.pairs[i]);
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
