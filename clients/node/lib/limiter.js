'use strict';
// The Limiter: hits, peeks, refunds and penalties through hit.lua and refund.lua, one atomic
// EVALSHA each, with policies read from Redis (or given inline) and a failure policy for when
// Redis cannot answer within the call's deadline.
const { EventEmitter } = require('node:events');
const { KeySchema, checkId, escapeId } = require('./keys');
const errors = require('./errors');
const { policyFromFields, parseWindows, withOverrideWindows } = require('./policy');
const { PreparedHit } = require('./prepared');
const { Decision } = require('./decision');
const { InsuranceLimiter } = require('./insurance');
const scripts = require('./scripts');
const { PolicyCache } = require('./policy-cache');
const { Moderation } = require('./moderation');

const { InvalidError, NoPolicyError, UnavailableError, classify } = errors;
const FAILURE_MODES = new Set(['report', 'allow', 'deny', 'insurance']);
const MAX_OVERRIDE_TARGETS = 4096;
const sharedInsurance = new InsuranceLimiter();

/** Settles with `promise`, or rejects with UnavailableError after `ms`: a call never hangs. */
function withDeadline(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new UnavailableError(`Redis did not answer within ${ms} ms`)), ms);
    promise.then((value) => { clearTimeout(timer); resolve(value); },
      (error) => { clearTimeout(timer); reject(error); });
  });
}

function overrideTarget(error) {
  const message = error && error.name === 'ReplyError' ? error.message : '';
  return message.startsWith('TG_OVERRIDE ') ? message.slice('TG_OVERRIDE '.length).trim() : null;
}

class Limiter extends EventEmitter {
  /**
   * @param redis an ioredis Redis or Cluster (Sentinel through ioredis' own options)
   * @param options prefix ('tg'), policies (inline: action -> the policy hash's fields),
   *   onError (overrides each policy's on_error), timeoutMs (1000), insurance
   *   (an InsuranceLimiter), subscribe (true: keep cached policies current from <p>:events),
   *   policyCacheMs (5000: how long a policy is reused while no subscription keeps it current),
   *   scriptsDir (the assembled scripts; default the package's lua/)
   */
  constructor(redis, options = {}) {
    super();
    const { prefix = 'tg', policies = {}, onError, timeoutMs = 1000, insurance, subscribe = true,
      policyCacheMs = 5000, scriptsDir } = options;
    if (!redis || typeof redis.evalsha !== 'function') throw new InvalidError('Limiter needs an ioredis Redis or Cluster');
    if (onError !== undefined && !FAILURE_MODES.has(onError)) throw new InvalidError(`onError must be one of ${[...FAILURE_MODES].join(', ')}`);
    this.redis = redis;
    this.schema = new KeySchema(prefix, redis.isCluster === true);
    this.scripts = scripts.loadScripts(scriptsDir);
    this.onError = onError;
    this.timeoutMs = timeoutMs;
    this.insurance = insurance || sharedInsurance;
    this.inline = new Map();
    for (const [action, fields] of Object.entries(policies)) {
      this.inline.set(action, new PreparedHit(policyFromFields(action, fields), this.schema));
    }
    this.policies = new PolicyCache(this, { subscribe, maxAgeMs: policyCacheMs });
    this.moderation = new Moderation(this);
    this.overrideTargets = new Map(); // "<action>\0<escaped user>" -> PreparedHit of the override
    this.checked = null;
    this.contractChecked = false;
    this.ready().catch(() => {}); // the first call reports a failure
  }

  /** Resolves once hit.lua answered this client's script contract (lua/README.md); a ContractError otherwise. */
  ready() {
    if (!this.checked) {
      this.checked = scripts.checkContract(this.redis, this.scripts).then(() => {
        this.contractChecked = true;
      }, (error) => {
        this.checked = null; // unavailable at start: asked again by the next call
        throw error;
      });
    }
    return this.checked;
  }

  /** Stops following the events channel (the caller's connection stays open). */
  close() {
    this.policies.close();
  }

  run(script, keyCount, keysAndArgs, readOnly = false) {
    return scripts.run(this.redis, script, keyCount, keysAndArgs, readOnly);
  }

  /** The policy of `action` (inline, cached, or HGETALL); NoPolicyError when there is none. */
  async policy(action) {
    return (await this.prepared(action)).policy;
  }

  async prepared(action, inline) {
    if (inline) return new PreparedHit(policyFromFields(action, inline), this.schema);
    return this.inline.get(action) || this.policies.get(action);
  }

  /** Counts a hit of `cost` units (default: the policy's) and answers a Decision. */
  hit(action, user, options) {
    return this.decide(false, action, user, options);
  }

  /** What a hit would get, counting nothing (EVALSHA_RO: a read-only ACL user may peek). */
  peek(action, user, options) {
    return this.decide(true, action, user, options);
  }

  async decide(peek, action, user, options = {}) {
    checkId(action, 'action');
    checkId(user, 'user id');
    const { cost, policy: inline } = options;
    if (cost !== undefined) PreparedHit.checkCost(cost);
    const mode = options.onError || this.onError;
    const timeoutMs = options.timeoutMs || this.timeoutMs;
    let prepared = this.inline.get(action) || this.policies.cached(action);
    try {
      return await withDeadline(this.decideOnline(peek, action, user, cost, inline, prepared), timeoutMs);
    } catch (error) {
      const typed = classify(error);
      if (!(typed instanceof UnavailableError)) throw typed;
      prepared = prepared || this.policies.cached(action, true);
      return this.answerWithoutRedis(mode || (prepared ? prepared.policy.onError : 'report'),
        prepared && prepared.policy, action, user, cost, !peek, typed);
    }
  }

  async decideOnline(peek, action, user, cost, inline, known) {
    if (!this.contractChecked || !known) await this.ready();
    const base = inline ? await this.prepared(action, inline) : (known || await this.prepared(action));
    const targetKey = `${action}\0${escapeId(user)}`;
    let prepared = this.overrideTargets.get(targetKey) || base;
    // A user's override with other windows than the policy's answers TG_OVERRIDE: the same hit
    // again with the windows it names; at most two redirects (lua/README.md, "Overrides").
    for (let redirects = 0; ; redirects++) {
      const args = prepared.hitArguments(peek, user, cost);
      try {
        const reply = await this.run(this.scripts.hit, prepared.keyCount, args, peek);
        return Decision.fromReply(base.policy, reply);
      } catch (error) {
        const target = overrideTarget(error);
        if (target === null || redirects >= 2) throw error;
        prepared = this.redirect(base, target, targetKey);
      }
    }
  }

  // The PreparedHit for a TG_OVERRIDE target ("policy" or "<window_ms>:<limit>,..."), remembered
  // for the user's next hits (the script checks it again, so a stale entry costs one redirect).
  redirect(base, target, targetKey) {
    this.overrideTargets.delete(targetKey);
    if (target === 'policy') return base;
    let windows;
    try {
      windows = parseWindows(target);
    } catch {
      throw new errors.TollgateError(`hit.lua redirected to malformed windows '${target.slice(0, 200)}'`, 'protocol');
    }
    const prepared = new PreparedHit(withOverrideWindows(base.policy, windows), this.schema, true);
    if (this.overrideTargets.size >= MAX_OVERRIDE_TARGETS) {
      this.overrideTargets.delete(this.overrideTargets.keys().next().value);
    }
    this.overrideTargets.set(targetKey, prepared);
    return prepared;
  }

  // The failure policy's decision (the C++ Limiter::answerWithoutRedis): report rethrows; allow
  // and deny answer at once; insurance counts in process. A shadow policy denies nobody.
  answerWithoutRedis(mode, policy, action, user, cost, count, error) {
    if (mode === 'report' || (mode === 'insurance' && !policy)) throw error;
    const decision = new Decision(policy || { action, windows: [] }, 'failure_policy');
    decision.failureMode = mode;
    decision.error = error.message;
    if (mode === 'allow') decision.allowed = true;
    else if (mode === 'deny') decision.tier = 'deny';
    else Object.assign(decision, this.insurance.hit(policy, user, cost === undefined ? policy.cost : cost, count));
    if (policy && policy.shadow && count) {
      decision.shadow = 1;
      decision.allowed = true;
    }
    if (!decision.allowed && policy && policy.message !== undefined) decision.message = policy.message;
    return decision;
  }

  /** Gives back `cost` units a hit consumed (refund.lua); the reply's fields. */
  refund(action, user, options = {}) {
    return this.refundCall('refund', action, user, options);
  }

  /** Counts `cost` extra units, banning as the policy says (refund.lua); actor and reason required. */
  penalize(action, user, options = {}) {
    return this.refundCall('penalize', action, user, options);
  }

  async refundCall(mode, action, user, options) {
    checkId(action, 'action');
    checkId(user, 'user id');
    const { cost = 1, actor = '', reason = '', timeoutMs = this.timeoutMs } = options;
    PreparedHit.checkCost(cost);
    if (mode === 'penalize' && (!String(actor).trim() || !String(reason).trim())) {
      throw new InvalidError('a penalty needs an actor and a reason');
    }
    const work = async () => {
      await this.ready();
      const base = await this.prepared(action, options.policy);
      let prepared = base;
      for (let redirects = 0; ; redirects++) {
        const args = prepared.refundArguments(mode, user, cost, actor, reason);
        try {
          const [changed, banCreated, count, limit, remaining, resetMs, banUntilMs] =
            await this.run(this.scripts.refund, prepared.refundKeyCount, args);
          return { changed: changed === 1, banCreated: banCreated === 1, count, limit, remaining, resetMs, banUntilMs };
        } catch (error) {
          const target = overrideTarget(error);
          if (target === null || redirects >= 2) throw error;
          prepared = target === 'policy' ? base
            : new PreparedHit(withOverrideWindows(base.policy, parseWindows(target)), this.schema, true);
        }
      }
    };
    try {
      return await withDeadline(work(), timeoutMs);
    } catch (error) {
      throw classify(error);
    }
  }

  // Moderation, overrides and policy writes: the same scripts with their audit entries.
  ban(user, options) { return this.moderation.ban(user, options); }
  unban(user, options) { return this.moderation.unban(user, options); }
  reset(user, options) { return this.moderation.reset(user, options); }
  setOverride(user, options) { return this.moderation.setOverride(user, options); }
  deleteOverride(user, options) { return this.moderation.deleteOverride(user, options); }
  savePolicy(action, fields, options) { return this.policies.save(action, fields, options); }
  deletePolicy(action, options) { return this.policies.delete(action, options); }
}

module.exports = { Limiter, withDeadline, sharedInsurance };
