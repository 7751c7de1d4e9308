'use strict';
// The Limiter: hits, peeks, refunds and penalties through hit.lua and refund.lua, one atomic
// EVALSHA each, with policies read from Redis (or given inline) and a failure policy for when
// Redis cannot answer within the call's deadline.
const { EventEmitter } = require('node:events');
// The application's own ioredis (a peer dependency): hits go as its Commands straight to
// sendCommand, their deadlines kept by Deadlines.
const { Command } = require('ioredis');
const { KeySchema, checkId, escapeId } = require('./keys');
const errors = require('./errors');
const { policyFromFields, parseWindows, withOverrideWindows } = require('./policy');
const { PreparedHit } = require('./prepared');
const { Decision } = require('./decision');
const { Deadlines } = require('./deadlines');
const { InsuranceLimiter } = require('./insurance');
const scripts = require('./scripts');
const { PolicyCache } = require('./policy-cache');
const { Moderation } = require('./moderation');

const { InvalidError, UnavailableError, classify } = errors;
const FAILURE_MODES = new Set(['report', 'allow', 'deny', 'insurance']);
const MAX_OVERRIDE_TARGETS = 4096;
const sharedInsurance = new InsuranceLimiter();
const NO_OPTIONS = Object.freeze({});
const REPLY_AS_TEXT = Object.freeze({ replyEncoding: 'utf8' });
const NO_ARGUMENTS = Object.freeze([]);

/**
 * One hit on its way: what its attempts share (a NOSCRIPT's EVAL, an override's redirect) and
 * the failure policy's inputs (`options`; null: errors are thrown as they are).
 */
class HitCall {
  constructor(limiter, peek, base, prepared, user, escaped, units, deadline, options) {
    this.limiter = limiter;
    this.peek = peek;
    this.base = base;
    this.prepared = prepared;
    this.user = user;
    this.escaped = escaped;
    this.units = units;
    this.deadline = deadline;
    this.options = options;
    this.redirects = 0;
    this.evalSource = false;
  }

  // An attempt failed: EVAL once after NOSCRIPT, follow TG_OVERRIDE at most twice (lua/README.md,
  // "Overrides"), else the failure policy. Answers a Decision or a promise of one, or throws.
  failed(error) {
    const limiter = this.limiter;
    if (!this.evalSource && scripts.isNoScript(error)) {
      this.evalSource = true;
      return limiter.attempt(this);
    }
    const target = overrideTarget(error);
    if (target === null || this.redirects >= 2) {
      if (this.options === null) throw error;
      return limiter.whenFailed(this.peek, this.base.policy.action, this.user, this.options, error);
    }
    this.redirects++;
    this.prepared = limiter.redirect(this.base, target, `${this.base.policy.action}\0${this.escaped}`);
    return limiter.attempt(this);
  }
}

/**
 * A hit as an ioredis Command whose RESP is already written (PreparedHit.hitText): ioredis
 * neither copies nor stringifies its arguments nor builds its text. Its promise settles with the
 * Decision itself: ioredis' resolve and reject land on this class' methods, so a hit makes no
 * closures and no promise beyond its own. Its `args` stay empty (what ioredis' debug log and
 * tracing would show); it is never sent to a Cluster.
 */
class HitCommand extends Command {
  constructor(name, text, call) {
    super(name, NO_ARGUMENTS, REPLY_AS_TEXT);
    this.text = text;
    this.call = call;
    this.slot = -1;
    this.settled = false;
  }

  // Instead of ioredis' own (three closures and the argument conversion a prebuilt text skips).
  initPromise() {
    this.promise = new Promise((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
  }

  toWritable() {
    return this.text;
  }

  resolve(value) {
    if (this.settled) return;
    this.settled = true;
    this.isResolved = true;
    this._clearTimers();
    const call = this.call;
    call.limiter.deadlines.settled(this.slot, this);
    try {
      // The parser's own array, its two strings (the tier, an override's kind) made text in place:
      // what ioredis' transformReply does with a copy of the whole reply.
      if (Array.isArray(value)) {
        if (value[1] instanceof Buffer) value[1] = value[1].toString();
        if (value[7] instanceof Buffer) value[7] = value[7].toString();
      }
      this.settle(Decision.fromReply(call.base.policy, value));
    } catch (error) {
      this.fail(error);
    }
  }

  reject(error) {
    if (this.settled) return;
    this.settled = true;
    this._clearTimers();
    const call = this.call;
    call.limiter.deadlines.settled(this.slot, this);
    try {
      this.settle(call.failed(error));
    } catch (failure) {
      this.fail(failure);
    }
  }
}

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
    if (redis && redis.options && redis.options.keyPrefix) {
      // hit.lua checks every key against the ids: a prefix ioredis adds would make them wrong.
      throw new InvalidError("give the key prefix as the Limiter's prefix option, not as ioredis' keyPrefix");
    }
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
    this.deadlines = new Deadlines();
    this.corked = null; // the socket batchWrites() corked for this tick
    this.uncork = () => {
      const stream = this.corked;
      this.corked = null;
      stream.uncork();
    };
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

  /** A script call (EVALSHA, EVAL on NOSCRIPT) within the Limiter's deadline. */
  run(script, keyCount, keysAndArgs, readOnly = false) {
    return this.timely(scripts.run(this.redis, script, keyCount, keysAndArgs, readOnly));
  }

  /** `promise` (a command's), or UnavailableError once the Limiter's timeoutMs has passed. */
  timely(promise) {
    return withDeadline(promise, this.timeoutMs);
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
    return this.decide(false, action, user, options || NO_OPTIONS);
  }

  /** What a hit would get, counting nothing (EVALSHA_RO: a read-only ACL user may peek). */
  peek(action, user, options) {
    return this.decide(true, action, user, options || NO_OPTIONS);
  }

  // One decision within its deadline. The common hit (contract checked, policy cached) goes
  // straight to one EVALSHA whose deadline a slot in this.deadlines keeps; the rest reads what it
  // needs first. Whatever fails for want of Redis goes to the failure policy.
  decide(peek, action, user, options) {
    let work;
    const timeoutMs = options.timeoutMs || this.timeoutMs;
    try {
      checkId(action, 'action');
      checkId(user, 'user id');
      const units = options.cost === undefined ? undefined : (PreparedHit.checkCost(options.cost), String(options.cost));
      const known = options.policy ? undefined : this.inline.get(action) || this.policies.cached(action);
      if (known && this.contractChecked) return this.send(peek, known, user, escapeId(user), units, Date.now() + timeoutMs, options);
      work = withDeadline(this.decideOnline(peek, action, user, units, options.policy, Date.now() + timeoutMs), timeoutMs);
      return work.then(undefined, (error) => this.whenFailed(peek, action, user, options, error));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // The failure policy's answer when Redis could not give one; any other error as it is.
  whenFailed(peek, action, user, options, error) {
    const typed = classify(error);
    if (!(typed instanceof UnavailableError)) throw typed;
    const prepared = options.policy ? undefined : this.inline.get(action) || this.policies.cached(action, true);
    const mode = options.onError || this.onError || (prepared ? prepared.policy.onError : 'report');
    return this.answerWithoutRedis(mode, prepared && prepared.policy, action, user, options.cost, !peek, typed);
  }

  async decideOnline(peek, action, user, units, inline, deadline) {
    await this.ready();
    const base = await this.prepared(action, inline);
    return this.send(peek, base, user, escapeId(user), units, deadline);
  }

  // hit.lua for `base`'s policy, or the windows the user was last redirected to, as one
  // ioredis Command that times out at `deadline`. A user's override with other windows than
  // those sent answers TG_OVERRIDE: the same hit again with the windows it names, at most two
  // redirects (lua/README.md, "Overrides"). NOSCRIPT: the same call once more as EVAL. What
  // still fails goes to the failure policy of `options` (null: it is thrown).
  send(peek, base, user, escaped, units, deadline, options = null) {
    const targetKey = this.overrideTargets.size ? `${base.policy.action}\0${escaped}` : null;
    const first = (targetKey && this.overrideTargets.get(targetKey)) || base;
    return this.attempt(new HitCall(this, peek, base, first, user, escaped, units, deadline, options));
  }

  // One attempt of `call`: a HitCommand (most hits), or a plain Command with the arguments for
  // an EVAL, a Cluster or a Buffer id.
  attempt(call) {
    const left = call.deadline - Date.now();
    if (left <= 0) return Promise.reject(new UnavailableError('Redis did not answer before the deadline'));
    const { peek, prepared, evalSource } = call;
    const script = this.scripts.hit;
    const name = evalSource ? (peek ? 'eval_ro' : 'eval') : (peek ? 'evalsha_ro' : 'evalsha');
    const text = evalSource ? null : prepared.hitText(peek, call.user, call.escaped, call.units, script.sha);
    if (text !== null) {
      const command = new HitCommand(name, text, call);
      command.slot = this.deadlines.add(command, call.deadline, left);
      this.batchWrites();
      this.redis.sendCommand(command);
      return command.promise;
    }
    const args = prepared.hitArguments(peek, call.user, call.escaped, call.units);
    args[0] = evalSource ? script.source : script.sha;
    const command = new Command(name, args, REPLY_AS_TEXT);
    const slot = this.deadlines.add(command, call.deadline, left);
    this.batchWrites();
    this.redis.sendCommand(command);
    return command.promise.then((reply) => {
      this.deadlines.settled(slot, command);
      return Decision.fromReply(call.base.policy, reply);
    }, (error) => {
      this.deadlines.settled(slot, command);
      return call.failed(error);
    });
  }

  // Hits sent in the same tick leave in one write: the connection's socket is corked until the
  // tick ends (Node then writes what it holds with one writev), instead of one system call per
  // hit. A Cluster's commands go to several sockets: they are left as they are.
  batchWrites() {
    if (this.corked || this.schema.cluster) return;
    const stream = this.redis.stream;
    if (!stream || this.redis.status !== 'ready' || typeof stream.cork !== 'function') return;
    stream.cork();
    this.corked = stream;
    process.nextTick(this.uncork);
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
