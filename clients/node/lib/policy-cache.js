'use strict';
// Policies read from Redis (HGETALL <p>:policy:<action>, or <p>:{:}:policy:<action> on a
// cluster) and kept, each with its prepared call, until the events channel says it changed:
// policy_set.lua and policy_delete.lua publish `policy` there. While no subscription keeps
// them current (before it is made, after a disconnect, or with subscribe off) a policy is
// reused for maxAgeMs at most; a reconnect forgets them all, since events may have been missed.
const { NoPolicyError, InvalidError, classify } = require('./errors');
const { escapeId, checkId } = require('./keys');
const { policyFromFields } = require('./policy');
const { PreparedHit } = require('./prepared');

const SCRIPT_OWNED = new Set(['revision', 'updated_by', 'updated_ms', 'updated_reason', 'contract']);

class PolicyCache {
  constructor(limiter, { subscribe, maxAgeMs }) {
    this.limiter = limiter;
    this.maxAgeMs = maxAgeMs;
    this.entries = new Map(); // action -> { prepared, at }
    this.loading = new Map(); // action -> Promise, so a burst of hits reads a policy once
    this.subscribed = false;
    this.subscriber = null;
    if (subscribe) this.subscribe();
  }

  subscribe() {
    const { redis, schema } = this.limiter;
    // Its own connection (a subscribed one takes no other commands), connected at once even
    // when the application's connects lazily.
    const subscriber = redis.isCluster ? redis.duplicate(undefined, { lazyConnect: false }) : redis.duplicate({ lazyConnect: false });
    this.subscriber = subscriber;
    subscriber.on('error', () => {}); // reconnects on its own; hits do not depend on it
    subscriber.on('close', () => { this.subscribed = false; });
    subscriber.on('ready', () => {
      subscriber.subscribe(schema.events).then(() => {
        this.entries.clear();
        this.subscribed = true;
        this.limiter.emit('subscribed');
      }, () => {});
    });
    subscriber.on('messageBuffer', (channel, message) => this.onEvent(message));
  }

  close() {
    if (this.subscriber) this.subscriber.disconnect();
    this.subscriber = null;
    this.subscribed = false;
  }

  // "<event>\n<byte length of user>\n<user><action>" (lua/README.md, "Events").
  onEvent(message) {
    const first = message.indexOf(10);
    const second = message.indexOf(10, first + 1);
    if (first < 0 || second < 0) return;
    const event = message.toString('latin1', 0, first);
    const userLength = Number(message.toString('latin1', first + 1, second));
    const action = message.toString('utf8', second + 1 + userLength);
    if (event !== 'policy') return;
    for (const cached of this.entries.keys()) {
      if (escapeId(cached) === action) this.entries.delete(cached);
    }
    this.limiter.emit('policy', action);
  }

  /** The prepared call of a cached policy still current, or with `stale` any cached one. */
  cached(action, stale = false) {
    const entry = this.entries.get(action);
    if (!entry) return undefined;
    if (stale || this.subscribed || Date.now() - entry.at < this.maxAgeMs) return entry.prepared;
    return undefined;
  }

  /** Drops cached policies: one action's, or all. */
  forget(action) {
    if (action === undefined) this.entries.clear(); else this.entries.delete(action);
  }

  get(action) {
    const current = this.cached(action);
    if (current) return current;
    let loading = this.loading.get(action);
    if (!loading) {
      loading = this.read(action).finally(() => this.loading.delete(action));
      this.loading.set(action, loading);
    }
    return loading;
  }

  async read(action) {
    const { redis, schema } = this.limiter;
    let fields;
    try {
      fields = await this.limiter.timely(redis.hgetall(schema.policyKey(action)));
    } catch (error) {
      throw classify(error);
    }
    if (!fields || Object.keys(fields).length === 0) {
      this.entries.delete(action);
      throw new NoPolicyError(action);
    }
    const prepared = new PreparedHit(policyFromFields(action, fields), schema);
    this.entries.set(action, { prepared, at: Date.now() });
    return prepared;
  }

  // policy_set.lua's and policy_delete.lua's keys: the hash, the audit stream, the index, the history.
  policyKeys(action) {
    const schema = this.limiter.schema;
    return [schema.policyKey(action), schema.audit, schema.policies, schema.policyHistoryKey(action)];
  }

  /**
   * Saves a policy (policy_set.lua, audited): `fields` as the hash holds them. Without
   * `revision` the stored one is read first; with it, a stale revision is a ConflictError.
   * Answers the new revision.
   */
  async save(action, fields, { actor, reason = '', revision } = {}) {
    checkId(action, 'action');
    if (!actor) throw new InvalidError('saving a policy needs an actor');
    policyFromFields(action, fields); // refuse what hits could not use
    const limiter = this.limiter;
    const pairs = [];
    for (const [field, value] of Object.entries(fields)) {
      if (SCRIPT_OWNED.has(field)) throw new InvalidError(`the field ${field} is set by the script`);
      pairs.push(field, String(value));
    }
    try {
      const expected = revision !== undefined ? revision
        : Number(await limiter.timely(limiter.redis.hget(limiter.schema.policyKey(action), 'revision')) || 0);
      const written = await limiter.run(limiter.scripts.policy_set, 4,
        [...this.policyKeys(action), String(expected), actor, limiter.schema.events, reason, ...pairs]);
      this.entries.delete(action);
      return written;
    } catch (error) {
      throw classify(error);
    }
  }

  /** Deletes a policy (policy_delete.lua, audited, kept in its history); 1 deleted, 0 there was none. */
  async delete(action, { actor, reason = '', revision } = {}) {
    checkId(action, 'action');
    if (!actor) throw new InvalidError('deleting a policy needs an actor');
    const limiter = this.limiter;
    try {
      const expected = revision !== undefined ? revision
        : Number(await limiter.timely(limiter.redis.hget(limiter.schema.policyKey(action), 'revision')) || 0);
      const deleted = await limiter.run(limiter.scripts.policy_delete, 4,
        [...this.policyKeys(action), String(expected), actor, limiter.schema.events, reason]);
      this.entries.delete(action);
      return deleted;
    } catch (error) {
      throw classify(error);
    }
  }
}

module.exports = { PolicyCache };
