'use strict';
// What a hit or a peek answers: hit.lua's reply (lua/README.md), or the failure policy's
// answer when Redis could not give one.
const { rateLimitHeaders } = require('./headers');
const { TollgateError } = require('./errors');

const TIERS = new Set(['ok', 'warn', 'deny', 'banned']);

class Decision {
  constructor(policy, source) {
    this.allowed = false;
    this.tier = 'ok';
    this.count = 0;
    this.limit = 0;
    this.remaining = 0;
    this.resetMs = 0;
    this.retryAfterMs = 0; // -1: never (a permanent ban, or a cost past every limit)
    this.message = null;   // the policy's message, when not allowed
    this.source = source;  // 'redis' | 'failure_policy'
    this.failureMode = null; // with source 'failure_policy': 'allow' | 'deny' | 'insurance'
    this.override = '';    // '' | 'limit' | 'unlimited': the user's override that decided
    this.shadow = 0;       // 1: a shadow policy's hit, 2: one enforcing would have banned
    this.countNow = -1;    // a peek's: the window's count as it stands
    this.resetNowMs = -1;  // a peek's: ms until that window is empty
    this.error = null;     // with source 'failure_policy': why Redis could not answer
    this.policy = policy;  // the policy that decided (headers() needs its windows)
  }

  /** The decision's own fields, without its policy. */
  toJSON() {
    const { policy, ...fields } = this;
    return fields;
  }

  /** The RateLimit, RateLimit-Policy and Retry-After header fields of this decision. */
  headers(partitionKey) {
    return rateLimitHeaders(this.policy, this, partitionKey);
  }

  /** From hit.lua's reply: 7 elements, 9 with an override or in shadow mode, 11 for a peek. */
  static fromReply(policy, reply) {
    if (!Array.isArray(reply) || reply.length < 7 || !TIERS.has(reply[1])) {
      throw new TollgateError(`malformed reply from hit.lua: ${JSON.stringify(reply)}`, 'protocol');
    }
    const d = new Decision(policy, 'redis');
    d.allowed = reply[0] === 1;
    d.tier = reply[1];
    d.count = reply[2];
    d.limit = reply[3];
    d.remaining = reply[4];
    d.resetMs = reply[5];
    d.retryAfterMs = reply[6];
    if (reply.length >= 9) {
      d.override = reply[7];
      d.shadow = reply[8];
    }
    if (reply.length >= 11) {
      d.countNow = reply[9];
      d.resetNowMs = reply[10];
    }
    if (!d.allowed && policy.message !== undefined) d.message = policy.message;
    return d;
  }
}

module.exports = { Decision };
