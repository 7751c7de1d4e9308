// A Fastify app limited by Tollgate: 429 with the RateLimit fields and the policy's message.
// REDIS_URL (redis://127.0.0.1:6379) and PORT (3000) from the environment; the policy
// `api` is read from Redis (tollgatectl policy set api --limit 5 --window 1m).
const Fastify = require('fastify');
const Redis = require('ioredis');
const { Limiter, fastifyLimit } = require('tollgate');

const limiter = new Limiter(new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379'), { prefix: 'tg' });
const app = Fastify();
app.get('/health', async () => 'ok');
app.register(fastifyLimit, { limiter, action: 'api', key: (request) => request.headers['x-api-key'] || request.ip, skip: (request) => request.url === '/health' });
app.get('/hello', async (request) => `hello, ${request.rateLimit.remaining} left`);
app.listen({ port: Number(process.env.PORT || 3000), host: '127.0.0.1' }).then(() => console.log(`listening on ${app.server.address().port}`));
