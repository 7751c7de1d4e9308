'use strict';
// The Limiter against a private redis-server.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Redis = require('ioredis');
const tollgate = require('..');
const { startRedis, sleep } = require('./support/redis');

const { Limiter, NoPolicyError, ContractError, CorruptError, InvalidError, UnavailableError, InsuranceLimiter } = tollgate;
const actor = { actor: 'tests', reason: 'testing' };

test('the Limiter', async (t) => {
  const server = await startRedis();
  const redis = new Redis({ port: server.port, lazyConnect: true });
  await redis.connect();
  const limiter = new Limiter(redis, { prefix: 'tg' });
  await new Promise((resolve) => limiter.once('subscribed', resolve));
  t.after(async () => {
    limiter.close();
    redis.disconnect();
    await server.stop();
  });
  await limiter.savePolicy('comment', { windows: '30000:3', message: 'Slow down' }, actor);

  await t.test('hits count until the limit, then deny with the message and the header fields', async () => {
    for (let i = 1; i <= 3; i++) {
      const d = await limiter.hit('comment', 'alice');
      assert.equal(d.allowed, true);
      assert.equal(d.count, i);
      assert.equal(d.remaining, 3 - i);
      assert.equal(d.source, 'redis');
      assert.equal(d.message, null);
    }
    const denied = await limiter.hit('comment', 'alice');
    assert.equal(denied.allowed, false);
    assert.equal(denied.tier, 'deny');
    assert.equal(denied.message, 'Slow down');
    assert.ok(denied.retryAfterMs > 29000 && denied.retryAfterMs <= 30000);
    assert.equal(denied.headers()['Retry-After'], '30');
    assert.equal(await redis.get('tg:{alice}:comment:fw:30000'), '3');
    assert.ok(await redis.pttl('tg:{alice}:comment:fw:30000') > 0);
  });

  await t.test('a peek counts nothing and says where the window stands', async () => {
    const d = await limiter.peek('comment', 'bob', { cost: 2 });
    assert.deepEqual([d.allowed, d.count, d.countNow, d.resetNowMs], [true, 2, 0, 0]);
    assert.equal(await redis.exists('tg:{bob}:comment:fw:30000'), 0);
  });

  await t.test('odd ids are escaped into their own keys', async () => {
    for (const id of ['a:b', 'Zoë', 'x y{z}*', '\ufeff', 'line\nbreak', Buffer.from([0xff])]) {
      assert.equal((await limiter.hit('comment', id)).count, 1);
    }
    assert.equal(await redis.get('tg:{a%3Ab}:comment:fw:30000'), '1');
    assert.equal(await redis.get('tg:{%FF}:comment:fw:30000'), '1');
    await assert.rejects(limiter.hit('comment', ''), InvalidError);
    await assert.rejects(limiter.hit('comment', 'x'.repeat(1025)), InvalidError);
    await assert.rejects(limiter.hit('comment', 'x', { cost: 0 }), InvalidError);
  });

  await t.test('a missing policy is a NoPolicyError; an inline policy needs none', async () => {
    await assert.rejects(limiter.hit('nothing', 'alice'), NoPolicyError);
    const d = await limiter.hit('nothing', 'alice', { policy: { algorithm: 'sliding_window', windows: '1000:5' } });
    assert.deepEqual([d.allowed, d.count, d.limit], [true, 1, 5]);
  });

  await t.test('a changed policy is seen through the events channel', async () => {
    await limiter.hit('comment', 'carol');
    const changed = new Promise((resolve) => limiter.once('policy', resolve));
    await limiter.savePolicy('comment', { windows: '30000:3,60000:50', message: 'Slow down' }, actor);
    await changed;
    assert.equal((await limiter.policy('comment')).windows.length, 2);
    const other = new Redis({ port: server.port });
    await limiter.hit('comment', 'carol');
    const saved = new Promise((resolve) => limiter.once('policy', resolve));
    const second = new Limiter(other);
    await second.savePolicy('comment', { windows: '30000:3', message: 'Slow down' }, actor);
    await saved;
    assert.equal((await limiter.policy('comment')).windows.length, 1);
    assert.equal((await limiter.hit('comment', 'carol')).count, 3);
    second.close();
    other.disconnect();
  });

  await t.test('SCRIPT FLUSH between calls costs one EVAL, never an error', async () => {
    await redis.script('FLUSH');
    assert.equal((await limiter.hit('comment', 'dave')).allowed, true);
    await redis.script('FLUSH');
    assert.equal((await limiter.peek('comment', 'dave')).count, 2);
  });

  await t.test('a key of the wrong type is a CorruptError', async () => {
    await redis.hset('tg:{eve}:comment:fw:30000', 'x', '1');
    await assert.rejects(limiter.hit('comment', 'eve'), CorruptError);
  });

  await t.test('ban, unban and reset write their audit entries', async () => {
    await limiter.hit('comment', 'frank');
    const ban = await limiter.ban('frank', { action: 'comment', ms: 60000, ...actor });
    assert.ok(ban.untilMs > ban.createdMs);
    const banned = await limiter.hit('comment', 'frank');
    assert.equal(banned.tier, 'banned');
    assert.equal(await limiter.ban('frank', { ms: 0, ...actor }).then((b) => b.untilMs), 0);
    assert.equal(await limiter.unban('frank', actor), 2);
    assert.equal(await limiter.reset('frank', actor), 1);
    assert.equal((await limiter.hit('comment', 'frank')).count, 1);
    const events = (await redis.xrange('tg:{frank}:audit', '-', '+')).map(([, f]) => f[f.indexOf('event') + 1]);
    assert.deepEqual(events, ['ban', 'ban', 'unban', 'reset']);
    assert.equal(await redis.xlen('tg:audit') >= 4, true);
    await assert.rejects(limiter.ban('frank', { actor: 'tests', reason: '' }), InvalidError);
  });

  await t.test('an override with other windows is followed, then remembered', async () => {
    await limiter.setOverride('gina', { action: 'comment', windows: '10000:1', ...actor });
    const first = await limiter.hit('comment', 'gina');
    assert.deepEqual([first.allowed, first.limit, first.override], [true, 1, 'limit']);
    assert.equal((await limiter.hit('comment', 'gina')).allowed, false);
    await limiter.deleteOverride('gina', { action: 'comment', ...actor });
    assert.deepEqual(await limiter.hit('comment', 'gina').then((d) => [d.allowed, d.limit, d.override]), [true, 3, '']);
    await limiter.setOverride('gina', { unlimited: true, ...actor });
    for (let i = 0; i < 5; i++) assert.equal((await limiter.hit('comment', 'gina')).allowed, true);
  });

  await t.test('refund gives back, penalize charges and bans as the policy says', async () => {
    await limiter.savePolicy('upload', { windows: '60000:5', ban_ms: '5000' }, actor);
    await limiter.hit('upload', 'hank', { cost: 2 });
    const refunded = await limiter.refund('upload', 'hank', { cost: 1 });
    assert.deepEqual([refunded.changed, refunded.count], [true, 1]);
    const penalized = await limiter.penalize('upload', 'hank', { cost: 5, ...actor });
    assert.equal(penalized.banCreated, true);
    assert.equal((await limiter.hit('upload', 'hank')).tier, 'banned');
    await assert.rejects(limiter.penalize('upload', 'hank', { cost: 1 }), InvalidError);
  });

  await t.test('a shadow policy counts and reports, and never refuses', async () => {
    await limiter.savePolicy('try', { windows: '60000:1', shadow: '1', ban_ms: '1000' }, actor);
    assert.equal((await limiter.hit('try', 'ivan')).shadow, 1);
    const over = await limiter.hit('try', 'ivan');
    assert.deepEqual([over.allowed, over.tier, over.shadow], [true, 'deny', 2]);
  });

  await t.test('when Redis does not answer, the failure policy decides within the deadline', async () => {
    await limiter.hit('comment', 'judy');
    await limiter.savePolicy('open', { windows: '60000:2', on_error: 'allow' }, actor);
    await limiter.hit('open', 'judy');
    server.freeze();
    try {
      let started = Date.now();
      await assert.rejects(limiter.hit('comment', 'judy', { timeoutMs: 100 }), UnavailableError);
      assert.ok(Date.now() - started < 1000);
      const allowed = await limiter.hit('comment', 'judy', { onError: 'allow', timeoutMs: 100 });
      assert.deepEqual([allowed.allowed, allowed.source, allowed.failureMode], [true, 'failure_policy', 'allow']);
      const denied = await limiter.hit('comment', 'judy', { onError: 'deny', timeoutMs: 100 });
      assert.deepEqual([denied.allowed, denied.tier, denied.message], [false, 'deny', 'Slow down']);
      assert.equal((await limiter.hit('open', 'judy', { timeoutMs: 100 })).allowed, true); // the policy's on_error
      const insured = new Limiter(redis, { onError: 'insurance', timeoutMs: 100, insurance: new InsuranceLimiter(), subscribe: false });
      insured.policies.entries.set('comment', limiter.policies.entries.get('comment'));
      started = Date.now();
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await insured.hit('comment', 'judy')).allowed);
      assert.deepEqual(answers, [true, true, true, false]);
      assert.ok(Date.now() - started < 2000);
      const quick = new Limiter(redis, { timeoutMs: 100, subscribe: false });
      started = Date.now();
      await assert.rejects(quick.ban('judy', { ms: 1000, ...actor }), UnavailableError);
      await assert.rejects(quick.unban('judy', actor), UnavailableError);
      await assert.rejects(quick.savePolicy('comment', { windows: '1000:1' }, actor), UnavailableError);
      assert.ok(Date.now() - started < 2000);
    } finally {
      server.thaw();
    }
    assert.equal((await limiter.hit('comment', 'judy')).source, 'redis');
  });

  await t.test('a server whose hit.lua speaks another contract is refused at start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-lua-'));
    for (const file of fs.readdirSync(path.join(__dirname, '..', 'lua'))) {
      fs.copyFileSync(path.join(__dirname, '..', 'lua', file), path.join(dir, file));
    }
    const hit = path.join(dir, 'hit.lua');
    fs.writeFileSync(hit, fs.readFileSync(hit, 'utf8').replace("ARGV[1] == 'contract' then return 3", "ARGV[1] == 'contract' then return 4"));
    const other = new Limiter(redis, { scriptsDir: dir, subscribe: false });
    await assert.rejects(other.ready(), /contract 4, this client speaks contract 3/);
    await assert.rejects(other.hit('comment', 'kim'), ContractError);
    fs.writeFileSync(hit, fs.readFileSync(hit, 'utf8').replace(/^Contract: 3/m, 'Contract: 4'));
    assert.throws(() => new Limiter(redis, { scriptsDir: dir }), ContractError);
    fs.rmSync(dir, { recursive: true });
    await redis.hset('tg:policy:future', 'windows', '1000:1', 'contract', '4');
    await assert.rejects(limiter.hit('future', 'kim'), ContractError);
  });
});
