'use strict';
// Through Sentinel, with ioredis' own support: the Limiter and its events subscription find
// the primary by name.
const test = require('node:test');
const assert = require('node:assert/strict');
const Redis = require('ioredis');
const { Limiter } = require('..');
const { startRedis, startSentinel } = require('./support/redis');

test('the Limiter through Sentinel', async (t) => {
  const primary = await startRedis();
  const sentinel = await startSentinel(primary, 'tollgate-test');
  const redis = new Redis({ sentinels: [{ host: '127.0.0.1', port: sentinel.port }], name: 'tollgate-test' });
  const limiter = new Limiter(redis, { prefix: 'tg' });
  await new Promise((resolve) => limiter.once('subscribed', resolve));
  t.after(async () => {
    limiter.close();
    redis.disconnect();
    await sentinel.stop();
    await primary.stop();
  });
  await limiter.savePolicy('comment', { windows: '30000:1', message: 'Slow down' }, { actor: 'tests' });
  assert.equal((await limiter.hit('comment', 'alice')).allowed, true);
  const denied = await limiter.hit('comment', 'alice');
  assert.deepEqual([denied.allowed, denied.message], [false, 'Slow down']);
  const changed = new Promise((resolve) => limiter.once('policy', resolve));
  await limiter.savePolicy('comment', { windows: '30000:5' }, { actor: 'tests' });
  await changed;
  assert.equal((await limiter.hit('comment', 'alice')).limit, 5);
});
