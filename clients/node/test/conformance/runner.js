'use strict';
// Runs the shared conformance cases (conformance/cases/*.json, format v1 in
// conformance/README.md) through this client's public API against a private redis-server, or
// a private Redis Cluster for the cases that ask for one. Used by run.js (PASS/FAIL lines) and
// by test/conformance.test.js (one node:test test per case).
const fs = require('node:fs');
const path = require('node:path');
const Redis = require('ioredis');
const { Limiter } = require('../..');
const { startRedis, startCluster, sleep } = require('../support/redis');

const CASES_DIR = process.env.TOLLGATE_CONFORMANCE_DIR || path.join(__dirname, '..', '..', '..', '..', 'conformance', 'cases');

const STEP_KEYS = {
  hit: ['action', 'user', 'cost', 'repeat', 'client'],
  peek: ['action', 'user', 'cost', 'repeat', 'client'],
  refund: ['action', 'user', 'cost', 'actor', 'reason', 'repeat', 'client'],
  penalize: ['action', 'user', 'cost', 'actor', 'reason', 'repeat', 'client'],
  ban: ['user', 'action', 'ms', 'reason', 'actor'],
  unban: ['user', 'action', 'reason', 'actor'],
  reset: ['user', 'action', 'reason', 'actor'],
  override: ['user', 'action', 'windows', 'unlimited', 'ms', 'reason', 'actor'],
  policy: ['action', 'fields', 'delete'],
  sleep: ['ms'],
  redis: ['command'],
  freeze: [],
  thaw: [],
  check: [],
};
const CASE_KEYS = new Set(['name', 'prefix', 'cluster', 'policies', 'steps', 'skip']);
const RUNNER = 'node'; // this runner's name in a case's `skip`

class StepFailure extends Error {}

function listCases(dir = CASES_DIR) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(dir, f));
}

// What the client answered, in the suite's names.
function decisionFields(d) {
  return {
    allowed: d.allowed, tier: d.tier, count: d.count, limit: d.limit, remaining: d.remaining,
    reset_ms: d.resetMs, retry_after_ms: d.retryAfterMs, message: d.message, override: d.override,
    shadow: d.shadow, source: d.source, count_now: d.countNow, reset_now_ms: d.resetNowMs,
  };
}

function refundFields(r) {
  return {
    changed: r.changed, ban_created: r.banCreated, count: r.count, limit: r.limit,
    remaining: r.remaining, reset_ms: r.resetMs, ban_until_ms: r.banUntilMs,
  };
}

// An id as a case spells it: a string, {"repeat": "a", "times": N} or {"hex": "ff41"} (bytes).
function id(value) {
  if (value === undefined || typeof value === 'string') return value;
  if (value && typeof value.hex === 'string') return Buffer.from(value.hex, 'hex');
  if (value && typeof value.repeat === 'string') return value.repeat.repeat(value.times);
  throw new StepFailure(`an id must be a string, {"hex"} or {"repeat", "times"}: ${show(value)}`);
}

// {"until_boundary": P, "utc_offset_ms": O}: the ms to the next t with (t + O) % P == 0, by
// this runner's clock, within a tolerance for the clocks and the time the step took.
const BOUNDARY_TOLERANCE_MS = 2000;

function nearBoundary(actual, { until_boundary: period, utc_offset_ms: offset }) {
  if (typeof actual !== 'number') return false;
  const expected = period - ((((Date.now() + offset) % period) + period) % period);
  const distance = (((actual - expected) % period) + period) % period;
  return Math.min(distance, period - distance) <= BOUNDARY_TOLERANCE_MS;
}

function same(expected, actual) {
  if (expected && typeof expected === 'object' && 'until_boundary' in expected) return nearBoundary(actual, expected);
  if (Array.isArray(expected) && expected.length === 2 && expected.every((n) => typeof n === 'number')) {
    return typeof actual === 'number' && actual >= expected[0] && actual <= expected[1];
  }
  if (expected === null || expected === undefined) return actual === null || actual === undefined || actual === '';
  if (typeof expected === 'boolean' && typeof actual === 'number') return Number(expected) === actual;
  if (typeof expected === 'number' && typeof actual === 'boolean') return expected === Number(actual);
  return expected === actual;
}

function show(value) {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

/** The environment of a run: servers started on first need, stopped by close(). */
class Servers {
  constructor() {
    this.single = null;
    this.cluster = null;
  }

  async get(cluster) {
    if (!cluster) {
      if (!this.single) {
        const server = await startRedis();
        const redis = new Redis({ port: server.port, maxRetriesPerRequest: 1 });
        this.single = { server, redis, freeze: () => server.freeze(), thaw: () => server.thaw() };
      }
      await this.single.redis.flushall();
      return this.single;
    }
    if (!this.cluster) {
      const servers = await startCluster();
      const redis = new Redis.Cluster(servers.ports.map((port) => ({ host: '127.0.0.1', port })));
      const nodes = servers.nodes;
      this.cluster = {
        server: servers, redis,
        freeze: () => nodes.forEach((n) => n.freeze()),
        thaw: () => nodes.forEach((n) => n.thaw()),
      };
    }
    await Promise.all(this.cluster.redis.nodes('master').map((node) => node.flushall()));
    return this.cluster;
  }

  async close() {
    for (const env of [this.single, this.cluster]) {
      if (!env) continue;
      env.thaw();
      env.redis.disconnect();
      await env.server.stop();
    }
  }
}

async function writePolicy(limiter, action, fields) {
  const keys = limiter.policies.policyKeys(action);
  const revision = Number(await limiter.redis.hget(keys[0], 'revision') || 0);
  const pairs = Object.entries(fields).flatMap(([field, value]) => [field, String(value)]);
  await limiter.run(limiter.scripts.policy_set, 4, [...keys, String(revision), 'conformance', limiter.schema.events, '', ...pairs]);
}

async function deletePolicy(limiter, action) {
  const keys = limiter.policies.policyKeys(action);
  const revision = Number(await limiter.redis.hget(keys[0], 'revision') || 0);
  await limiter.run(limiter.scripts.policy_delete, 4, [...keys, String(revision), 'conformance', limiter.schema.events, '']);
}

// Keys under the prefix without a TTL that must have one: counters, bans with an end, and
// override hashes without a permanent override.
async function keysWithoutTtl(env, prefix) {
  const nodes = env.redis.isCluster ? env.redis.nodes('master') : [env.redis];
  let missing = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        if (await node.pttl(key) !== -1) continue;
        if (key.startsWith(`${prefix}:{:}`)) continue; // a cluster's policies and indexes
        const tail = key.slice(key.lastIndexOf('}') + 1);
        if (/^:[^:]+:(fw|sl|sw|tb):\d+$/.test(tail)) missing++;
        else if (/^(:[^:]+)?:ban$/.test(tail) && (await node.hget(key, 'until_ms')) !== '0') missing++;
        else if (tail === ':overrides' && (await node.hvals(key)).every((value) => value.split(' ')[1] !== '0')) missing++;
      }
    } while (cursor !== '0');
  }
  return missing;
}

async function runStep(step, limiter, env, prefix) {
  const { op } = step;
  const allowedKeys = STEP_KEYS[op];
  if (!allowedKeys) throw new StepFailure(`unknown op ${show(op)}`);
  for (const key of Object.keys(step)) {
    if (key !== 'op' && key !== 'expect' && !allowedKeys.includes(key)) throw new StepFailure(`unknown key ${show(key)} in a ${op} step`);
  }
  const client = step.client || {};
  const callOptions = {
    ...(step.cost !== undefined ? { cost: step.cost } : {}),
    ...(client.on_error ? { onError: client.on_error } : {}),
    ...(client.timeout_ms ? { timeoutMs: client.timeout_ms } : {}),
  };
  const who = { actor: step.actor === undefined ? 'conformance' : step.actor, reason: step.reason === undefined ? 'conformance' : step.reason };
  const action = id(step.action);
  const user = id(step.user);
  switch (op) {
    case 'hit': return decisionFields(await limiter.hit(action, user, callOptions));
    case 'peek': return decisionFields(await limiter.peek(action, user, callOptions));
    case 'refund':
    case 'penalize':
      return refundFields(await limiter[op](action, user, { ...callOptions, ...who }));
    case 'ban': {
      const ban = await limiter.ban(user, { action, ms: step.ms || 0, ...who });
      return { until_ms: ban.untilMs, created_ms: ban.createdMs };
    }
    case 'unban':
    case 'reset':
      return { deleted: await limiter[op](user, { action, ...who }) };
    case 'override': {
      const set = await limiter.setOverride(user, {
        action, windows: step.windows, unlimited: step.unlimited === true, ms: step.ms || 0, ...who,
      });
      return { until_ms: set.untilMs, set_ms: set.setMs, key_end: set.keyEnd };
    }
    case 'policy':
      if (step.delete) await deletePolicy(limiter, action);
      else await writePolicy(limiter, action, step.fields || {});
      limiter.policies.forget();
      return {};
    case 'sleep': await sleep(step.ms); return {};
    case 'redis': {
      const [command, ...args] = step.command;
      return { reply: await env.redis.call(command, ...args) };
    }
    case 'freeze': env.freeze(); return {};
    case 'thaw': env.thaw(); return {};
    case 'check': return {};
    default: throw new StepFailure(`unknown op ${show(op)}`);
  }
}

function check(index, expect, answer, error) {
  if (expect && 'error' in expect) {
    const kind = error ? error.kind : undefined;
    if (kind !== expect.error) {
      throw new StepFailure(`step ${index}: error expected ${show(expect.error)} got ${error ? `${show(kind)} (${error.message})` : 'no error'}`);
    }
    return;
  }
  if (error) throw new StepFailure(`step ${index}: ${error.kind || 'error'} ${error.message}`);
  for (const [field, expected] of Object.entries(expect || {})) {
    if (field === 'keys_without_ttl') continue;
    if (!(field in answer)) throw new StepFailure(`step ${index}: ${field} expected ${show(expected)} got nothing`);
    if (!same(expected, answer[field])) throw new StepFailure(`step ${index}: ${field} expected ${show(expected)} got ${show(answer[field])}`);
  }
}

/** Runs one case; resolves { status: 'pass' | 'fail' | 'skip', message }. */
async function runCase(file, servers, { cluster = true } = {}) {
  let spec;
  try {
    spec = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return { status: 'fail', message: `not JSON: ${error.message}` };
  }
  const unknown = Object.keys(spec).filter((key) => !CASE_KEYS.has(key));
  if (unknown.length) return { status: 'fail', message: `unknown case key ${show(unknown[0])}` };
  if (spec.skip && spec.skip[RUNNER]) return { status: 'skip', message: spec.skip[RUNNER] };
  if (spec.cluster && !cluster) return { status: 'skip', message: 'needs a Redis Cluster' };
  const env = await servers.get(spec.cluster === true);
  const prefix = spec.prefix || 'tg';
  const limiter = new Limiter(env.redis, { prefix, subscribe: false, policyCacheMs: 0 });
  try {
    for (const [action, fields] of Object.entries(spec.policies || {})) await writePolicy(limiter, action, fields);
    let index = 0;
    for (const step of spec.steps || []) {
      index++;
      const repeat = step.repeat || 1;
      for (let i = 0; i < repeat; i++) {
        let answer, error;
        const started = Date.now();
        try {
          answer = await runStep(step, limiter, env, prefix);
        } catch (caught) {
          if (caught instanceof StepFailure) throw new StepFailure(`step ${index}: ${caught.message}`);
          error = caught;
        }
        if (answer) answer.elapsed_ms = Date.now() - started;
        check(repeat > 1 ? `${index} (repetition ${i + 1})` : index, step.expect, answer, error);
      }
      if (step.expect && 'keys_without_ttl' in step.expect) {
        const missing = await keysWithoutTtl(env, prefix);
        if (missing !== step.expect.keys_without_ttl) {
          throw new StepFailure(`step ${index}: keys_without_ttl expected ${step.expect.keys_without_ttl} got ${missing}`);
        }
      }
    }
    return { status: 'pass' };
  } catch (error) {
    if (error instanceof StepFailure) return { status: 'fail', message: error.message };
    return { status: 'fail', message: `${error.name}: ${error.message}` };
  } finally {
    env.thaw();
    limiter.close();
  }
}

module.exports = { runCase, listCases, Servers, CASES_DIR };
