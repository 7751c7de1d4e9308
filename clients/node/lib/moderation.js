'use strict';
// Support tooling: ban, unban and reset with a reason and an actor, and limit overrides, each
// through its script (ban.lua, unban.lua, reset.lua, override_set.lua, override_delete.lua),
// which writes the change and its audit entries in one atomic step.
const { InvalidError, classify } = require('./errors');
const { escapeId, checkId } = require('./keys');

const STATE_CODES = /^(fw|sl|sw|tb)$/;

function checkWrite(user, action, actor, reason, reasonRequired = true) {
  checkId(user, 'user id');
  if (action) checkId(action, 'action');
  if (!actor || !String(actor).trim()) throw new InvalidError('an actor is required');
  // Every ban and unban says why: the audit trail is for people.
  if (reasonRequired && (!reason || !String(reason).trim())) throw new InvalidError('a reason is required');
}

function duration(name, value) {
  if (!(Number.isInteger(value) && value >= 0)) throw new InvalidError(`${name} must be a whole number of ms >= 0`);
  return String(value);
}

class Moderation {
  constructor(limiter) {
    this.limiter = limiter;
  }

  async call(script, keys, args) {
    const limiter = this.limiter;
    try {
      return await limiter.run(limiter.scripts[script], keys.length, [...keys, ...args]);
    } catch (error) {
      throw classify(error);
    }
  }

  // The user's audit stream and the global mirror (the user's stream again on a cluster).
  auditKeys(escapedUser) {
    const schema = this.limiter.schema;
    const stream = schema.userAuditKey(escapedUser);
    return [stream, schema.auditMirror(stream)];
  }

  /**
   * Bans a user from one action (or every action, without `action`) for `ms` (0 and no
   * `untilMs`: permanent); answers { untilMs, createdMs }.
   */
  async ban(user, { action = '', ms = 0, untilMs = 0, reason, actor } = {}) {
    checkWrite(user, action, actor, reason);
    if (ms > 0 && untilMs > 0) throw new InvalidError('give a ban duration or an end time, not both');
    const schema = this.limiter.schema;
    const escaped = escapeId(user);
    const banKey = action ? schema.actionBanKey(escaped, escapeId(action)) : schema.userBanKey(escaped);
    const [until, created] = await this.call('ban', [banKey, ...this.auditKeys(escaped)],
      [user, action, actor, reason, duration('ms', ms), duration('untilMs', untilMs), schema.events]);
    return { untilMs: until, createdMs: created };
  }

  /** Lifts the user's ban of one action, or every ban of the user; answers how many were deleted. */
  async unban(user, { action = '', reason, actor } = {}) {
    checkWrite(user, action, actor, reason);
    const schema = this.limiter.schema;
    const escaped = escapeId(user);
    let keys;
    if (action) {
      keys = [schema.actionBanKey(escaped, escapeId(action))];
    } else {
      keys = await this.userKeys(escaped, (rest) => rest === 'ban' || /^[^:]+:ban$/.test(rest));
      if (!keys.includes(schema.userBanKey(escaped))) keys.push(schema.userBanKey(escaped));
    }
    return this.call('unban', [...this.auditKeys(escaped), ...keys], [user, action, actor, reason, schema.events]);
  }

  /** Deletes the user's counters of one action (or of every action); bans stay. Answers how many keys were deleted. */
  async reset(user, { action = '', reason = '', actor } = {}) {
    checkWrite(user, action, actor, reason, false);
    const schema = this.limiter.schema;
    const escaped = escapeId(user);
    const escapedAction = action ? escapeId(action) : null;
    const keys = await this.userKeys(escaped, (rest) => {
      const parts = rest.split(':');
      return parts.length === 3 && STATE_CODES.test(parts[1]) && /^\d+$/.test(parts[2]) &&
        (escapedAction === null || parts[0] === escapedAction);
    });
    return this.call('reset', [...this.auditKeys(escaped), ...keys], [user, action, actor, reason, schema.events]);
  }

  // SCAN MATCH <p>:{<user>}:* to the end (on every primary of a cluster), keeping the keys whose
  // part after "<p>:{<user>}:" `accept` takes: escaped ids make the pattern exact.
  async userKeys(escapedUser, accept) {
    const { redis, schema } = this.limiter;
    const head = `${schema.userBase(escapedUser)}:`;
    const nodes = redis.isCluster ? redis.nodes('master') : [redis];
    const found = new Set();
    try {
      for (const node of nodes) {
        let cursor = '0';
        do {
          const [next, keys] = await this.limiter.timely(node.scan(cursor, 'MATCH', `${head}*`, 'COUNT', 1000));
          for (const key of keys) if (key.startsWith(head) && accept(key.slice(head.length))) found.add(key);
          cursor = next;
        } while (cursor !== '0');
      }
    } catch (error) {
      throw classify(error);
    }
    return [...found];
  }

  // override_set.lua's and override_delete.lua's keys. On a cluster the index is in no user's
  // slot: the script gets the hash again ("none") and the index is written after it.
  overrideKeys(escapedUser) {
    const schema = this.limiter.schema;
    const hash = schema.overridesKey(escapedUser);
    return [hash, ...this.auditKeys(escapedUser), schema.cluster ? hash : schema.overrideIndex];
  }

  async indexOnCluster(escapedUser, keyEnd) {
    const { redis, schema } = this.limiter;
    if (!schema.cluster) return;
    try {
      if (keyEnd === 0) await this.limiter.timely(redis.zrem(schema.overrideIndex, escapedUser));
      else await this.limiter.timely(redis.zadd(schema.overrideIndex, keyEnd < 0 ? '+inf' : String(keyEnd), escapedUser));
    } catch (error) {
      throw classify(error);
    }
  }

  /**
   * Gives the user other limits for an action ('*': every action): `windows` "60000:100,..."
   * or `unlimited: true` (an exemption), for `ms` (0 and no `untilMs`: permanent). Answers
   * { untilMs, setMs, keyEnd }.
   */
  async setOverride(user, { action = '*', windows = '', unlimited = false, ms = 0, untilMs = 0, reason, actor } = {}) {
    checkWrite(user, action, actor, reason);
    if (!unlimited && !windows) throw new InvalidError('an override needs windows or unlimited');
    const escaped = escapeId(user);
    const [until, setMs, keyEnd] = await this.call('override_set', this.overrideKeys(escaped),
      [user, action, actor, reason, unlimited ? 'unlimited' : 'limit', unlimited ? '' : String(windows),
        duration('ms', ms), duration('untilMs', untilMs), this.limiter.schema.events]);
    await this.indexOnCluster(escaped, keyEnd);
    return { untilMs: until, setMs, keyEnd };
  }

  /** Ends the user's override of an action ('*': the every-action one); answers { deleted, keyEnd }. */
  async deleteOverride(user, { action = '*', reason, actor } = {}) {
    checkWrite(user, action, actor, reason);
    const escaped = escapeId(user);
    const [deleted, keyEnd] = await this.call('override_delete', this.overrideKeys(escaped),
      [user, action, actor, reason, this.limiter.schema.events]);
    await this.indexOnCluster(escaped, keyEnd);
    return { deleted: deleted === 1, keyEnd };
  }
}

module.exports = { Moderation };
