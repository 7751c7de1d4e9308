'use strict';
// Escaping, policies, header fields and the insurance limiter, without Redis.
const test = require('node:test');
const assert = require('node:assert/strict');
const { escapeId, policyFromFields, rateLimitHeaders, InsuranceLimiter, BadPolicyError, ContractError } = require('..');
const { Decision } = require('../lib/decision');
const { KeySchema } = require('../lib/keys');
const { PreparedHit } = require('../lib/prepared');
const { Command } = require('ioredis');

test('ids are escaped as lua/README.md says', () => {
  assert.equal(escapeId('alice'), 'alice');
  assert.equal(escapeId('a:b'), 'a%3Ab');
  assert.equal(escapeId('Zoë'), 'Zoë');
  assert.equal(escapeId(Buffer.from([0xff])), '%FF');
  assert.equal(escapeId(Buffer.from([0xfe])), '%FE');
  assert.equal(escapeId('\ufffd'), '\ufffd');
  assert.equal(escapeId('a b{c}*?[]\\%\n'), 'a%20b%7Bc%7D%2A%3F%5B%5D%5C%25%0A');
  assert.equal(escapeId('\ufeffm'), '\ufeffm');
  assert.equal(escapeId(Buffer.from('Zoë')), 'Zoë');
  assert.equal(escapeId(Buffer.from([0xc0, 0x80])), '%C0%80'); // an overlong form is no UTF-8
  assert.equal(escapeId(Buffer.from([0xed, 0xa0, 0x80])), '%ED%A0%80'); // nor is a surrogate
});

test("a hit's RESP written once per policy is what ioredis writes for the same arguments", () => {
  const sha = 'c9524e73bba2163987de0f41ae5fb2cd6327af9e';
  const policies = [
    { windows: '60000:10' },
    { windows: '60000:10,3600000:100', ban_ms: '1000', warn: '3', count_denied: '1' },
    { windows: '86400000:5', ban_until_midnight: '1', tz: 'Europe/Berlin', algorithm: 'sliding_log', shadow: '1' },
  ];
  for (const fields of policies) {
    const prepared = new PreparedHit(policyFromFields('a:b%é', fields), new KeySchema('tg', false));
    for (const user of ['alice', 'Zoë:1 {*}', 'x%41', '\ufeff']) {
      for (const peek of [false, true]) {
        for (const units of [undefined, '7']) {
          const args = prepared.hitArguments(peek, user, escapeId(user), units);
          args[0] = sha;
          const ioredis = new Command(peek ? 'evalsha_ro' : 'evalsha', args).toWritable();
          assert.equal(prepared.hitText(peek, user, escapeId(user), units, sha), ioredis);
        }
      }
    }
  }
  const cluster = new PreparedHit(policyFromFields('like', policies[0]), new KeySchema('tg', true));
  assert.equal(cluster.hitText(false, 'alice', 'alice', undefined, sha), null); // a Cluster routes by the arguments
  const byBytes = new PreparedHit(policyFromFields('like', policies[0]), new KeySchema('tg', false));
  assert.equal(byBytes.hitText(false, Buffer.from([0xff]), '%FF', undefined, sha), null);
});

test('the prefix keeps the rule of lua/README.md', () => {
  assert.equal(new KeySchema('my-app', false).policyKey('a:b'), 'my-app:policy:a%3Ab');
  assert.equal(new KeySchema('tg', true).policyKey('like'), 'tg:{:}:policy:like');
  for (const bad of ['', 'a:b', 'a*', 'a{', 'a b', 'x'.repeat(65)]) assert.throws(() => new KeySchema(bad, false), /key prefix/);
});

test('a policy is read as the C++ Policy::fromFields reads it', () => {
  const policy = policyFromFields('like', { algorithm: 'gcra', windows: '60000:10,3600000:100', cost: '2', message: 'Slow down', contract: '2', other: 'x' });
  assert.equal(policy.algorithm, 'token_bucket');
  assert.deepEqual(policy.windows, [{ windowMs: 60000, limit: 10 }, { windowMs: 3600000, limit: 100 }]);
  assert.equal(policy.cost, 2);
  assert.throws(() => policyFromFields('like', { windows: '60000:10', contract: '4' }), ContractError);
  assert.throws(() => policyFromFields('like', { windows: '60000' }), BadPolicyError);
  assert.throws(() => policyFromFields('like', { windows: '60000:10', algorithm: 'leaky' }), BadPolicyError);
  assert.throws(() => policyFromFields('like', { windows: '60000:10', warn: '10' }), BadPolicyError);
  assert.throws(() => policyFromFields('like', {}), BadPolicyError);
});

function decision(policy, fields) {
  return Object.assign(new Decision(policy, 'redis'), fields);
}

test('header fields are those of the C++ rateLimitHeaders', () => {
  const policy = policyFromFields('like', { windows: '60000:10,3600000:100' });
  const allowed = decision(policy, { allowed: true, tier: 'ok', count: 3, limit: 10, remaining: 7, resetMs: 41500, retryAfterMs: 0 });
  assert.deepEqual(rateLimitHeaders(policy, allowed), {
    'RateLimit-Policy': '"like-1m";q=10;w=60, "like-1h";q=100;w=3600',
    RateLimit: '"like-1m";r=7;t=42',
  });
  const denied = decision(policy, { allowed: false, tier: 'deny', count: 100, limit: 100, remaining: 0, resetMs: 1000, retryAfterMs: 3599000 });
  assert.deepEqual(denied.headers(), {
    'RateLimit-Policy': '"like-1m";q=10;w=60, "like-1h";q=100;w=3600',
    RateLimit: '"like-1h";r=0;t=3599',
    'Retry-After': '3599',
  });
  const banned = decision(policy, { allowed: false, tier: 'banned', count: 2, limit: 10, remaining: 8, resetMs: 0, retryAfterMs: -1 });
  assert.equal(banned.headers().RateLimit, '"like-1m";r=0;t=0');
  assert.equal(banned.headers()['Retry-After'], undefined);
  const odd = policyFromFields('a"b\\c%d é', { windows: '500:1,5400000:2' });
  assert.equal(rateLimitHeaders(odd, decision(odd, { allowed: true, limit: 2, remaining: 1, resetMs: 1 }), 'k')['RateLimit-Policy'],
    '"a\\"b\\\\c%25d %C3%A9-500ms";q=1;w=1;pk=:aw==:, "a\\"b\\\\c%25d %C3%A9-1h30m";q=2;w=5400;pk=:aw==:');
});

test('the insurance limiter counts fixed windows with scaled limits, all or nothing', () => {
  const insurance = new InsuranceLimiter({ factor: 0.5 });
  const policy = policyFromFields('like', { windows: '60000:4,3600000:100' });
  assert.equal(insurance.hit(policy, 'u', 1, true).remaining, 1);
  assert.equal(insurance.hit(policy, 'u', 1, false).allowed, true);
  assert.equal(insurance.hit(policy, 'u', 1, true).remaining, 0);
  const denied = insurance.hit(policy, 'u', 1, true);
  assert.equal(denied.allowed, false);
  assert.equal(denied.limit, 2);
  assert.ok(denied.retryAfterMs > 59000 && denied.retryAfterMs <= 60000);
  assert.equal(insurance.hit(policy, 'u', 3, true).retryAfterMs, -1);
  assert.equal(insurance.hit(policy, 'v', 1, true).allowed, true);
});
