// An Express app limited by Tollgate: 429 with the RateLimit fields and the policy's message.
// REDIS_URL (redis://127.0.0.1:6379) and PORT (3000) from the environment; the policy
// `api` is read from Redis (tollgatectl policy set api --limit 5 --window 1m).
const express = require('express');
const Redis = require('ioredis');
const { Limiter, expressLimit } = require('tollgate');

const limiter = new Limiter(new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379'), { prefix: 'tg' });
const app = express();
app.get('/health', (req, res) => res.send('ok'));
app.use(expressLimit({ limiter, action: 'api', key: (req) => req.get('x-api-key') || req.ip, skip: (req) => req.path === '/health' }));
app.get('/hello', (req, res) => res.send(`hello, ${req.rateLimit.remaining} left`));
const server = app.listen(Number(process.env.PORT || 3000), '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
