// A closed-loop load on rate-limiter-flexible's RateLimiterRedis.consume() over ioredis
// (load.js): one limiter per connection, every consume allowed.
//
//   node consume.js --port 6379 [--reset-stats] [--connections 8] [--pipeline 16] [--users 1000] [--seconds 5]
'use strict';
const Redis = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { options, runLoad } = require('./load');

async function main() {
  const load = options();
  const clients = [];
  for (let i = 0; i < load.connections; i++) {
    const client = new Redis({ host: '127.0.0.1', port: load.port, enableOfflineQueue: false, lazyConnect: true });
    await client.connect();
    clients.push(client);
  }
  // Every consume is allowed, as in bench_hit: a limit no bench reaches, an hour's window.
  const limiters = clients.map(
    (client) => new RateLimiterRedis({ storeClient: client, points: 1e9, duration: 3600, keyPrefix: 'rlf' }));
  await runLoad(load, limiters, async (limiter, user) => {
    await limiter.consume(user, 1);
    return true;
  }, clients[0]);
  clients.forEach((client) => client.disconnect());
}

main().catch((error) => { console.error(error); process.exit(3); });
