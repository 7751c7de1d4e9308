// A typed use of the package: compiled by `tsc --noEmit` (test/package.test.js), never run.
import Redis from 'ioredis';
import express from 'express';
import { Limiter, Decision, NoPolicyError, expressLimit, rateLimitHeaders, type FailureMode } from 'tollgate';

async function main(): Promise<void> {
  const redis = new Redis();
  const limiter = new Limiter(redis, { prefix: 'tg', timeoutMs: 200, onError: 'allow' });
  const decision: Decision = await limiter.hit('comment', '42', { cost: 1 });
  const allowed: boolean = decision.allowed;
  const wait: number = decision.retryAfterMs;
  const source: 'redis' | 'failure_policy' = decision.source;
  const fields: Record<string, string | undefined> = { ...decision.headers() };
  const peeked = await limiter.peek('comment', Buffer.from([0xff]));
  const mode: FailureMode = 'insurance';
  await limiter.refund('comment', '42', { cost: 1 });
  await limiter.ban('42', { action: 'comment', ms: 60000, reason: 'spam', actor: 'support' });
  const lifted: number = await limiter.unban('42', { reason: 'appeal', actor: 'support' });
  const policy = await limiter.policy('comment');
  rateLimitHeaders(policy, peeked);
  try {
    await limiter.hit('nothing', '42');
  } catch (error) {
    if (error instanceof NoPolicyError) console.log(error.action);
  }
  const app = express();
  app.use(expressLimit({ limiter, action: 'api', key: (req) => req.ip ?? 'unknown', skip: (req) => req.path === '/health' }));
  console.log(allowed, wait, source, fields, mode, lifted);
}

void main;
