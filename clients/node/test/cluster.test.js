'use strict';
// The Limiter on a private three-primary Redis Cluster through ioredis' Cluster: the policy
// keys under {:}, each user's keys in one slot, moderation and the override index.
const test = require('node:test');
const assert = require('node:assert/strict');
const Redis = require('ioredis');
const { Limiter } = require('..');
const { startCluster } = require('./support/redis');

const actor = { actor: 'tests', reason: 'testing' };

test('the Limiter on a Redis Cluster', async (t) => {
  const cluster = await startCluster();
  const redis = new Redis.Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
  const limiter = new Limiter(redis, { prefix: 'tg' });
  await new Promise((resolve) => limiter.once('subscribed', resolve));
  t.after(async () => {
    limiter.close();
    redis.disconnect();
    await cluster.stop();
  });

  await limiter.savePolicy('comment', { windows: '30000:2,60000:10', message: 'Slow down', ban_ms: '60000' }, actor);
  assert.equal(await redis.hget('tg:{:}:policy:comment', 'windows'), '30000:2,60000:10');
  assert.equal(await redis.sismember('tg:{:}:policies', 'comment'), 1);

  const users = ['alice', 'bob', 'carol', 'a:b', 'Zoë'];
  for (const user of users) {
    assert.equal((await limiter.hit('comment', user)).allowed, true);
    assert.equal((await limiter.hit('comment', user)).allowed, true);
    const denied = await limiter.hit('comment', user);
    assert.deepEqual([denied.allowed, denied.tier, denied.message], [false, 'deny', 'Slow down']);
    assert.equal((await limiter.hit('comment', user)).tier, 'banned');
  }
  // The automatic ban's audit entry stays in the user's slot: the user's stream, no mirror.
  assert.ok(await redis.xlen('tg:{alice}:audit') >= 1);

  assert.equal(await limiter.unban('alice', actor), 1);
  assert.equal(await limiter.reset('alice', { action: 'comment', ...actor }), 2);
  assert.equal((await limiter.hit('comment', 'alice')).count, 1);
  assert.equal((await limiter.peek('comment', 'alice')).countNow, 1);

  await limiter.setOverride('dave', { action: 'comment', windows: '5000:1', ms: 60000, ...actor });
  assert.ok(Number(await redis.zscore('tg:{:}:overrides', 'dave')) > Date.now());
  assert.equal((await limiter.hit('comment', 'dave')).override, 'limit');
  await limiter.deleteOverride('dave', { action: 'comment', ...actor });
  assert.equal(await redis.zscore('tg:{:}:overrides', 'dave'), null);

  const changed = new Promise((resolve) => limiter.once('policy', resolve));
  await limiter.savePolicy('comment', { windows: '30000:5' }, actor);
  await changed;
  assert.equal((await limiter.hit('comment', 'erin')).limit, 5);
});
