// A closed-loop load on rate-limiter-flexible's RateLimiterRedis.consume() over ioredis, shaped
// like `tollgatectl bench hit`: C connections (one limiter each), P consumes in flight per
// connection, user ids drawn at random from U, for S seconds; prints one JSON line.
//
//   node consume.js --port 6379 [--connections 8] [--pipeline 16] [--users 1000] [--seconds 5]
'use strict';
const Redis = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');

function option(name, fallback) {
  const at = process.argv.indexOf('--' + name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const port = option('port', 6379);
const connections = option('connections', 8);
const pipeline = option('pipeline', 16);
const users = option('users', 1000);
const seconds = option('seconds', 5);

async function main() {
  const clients = [];
  for (let i = 0; i < connections; i++) {
    const client = new Redis({ host: '127.0.0.1', port, enableOfflineQueue: false, lazyConnect: true });
    await client.connect();
    clients.push(client);
  }
  // Every consume is allowed, as in bench_hit: a limit no bench reaches, an hour's window.
  const limiters = clients.map(
    (client) => new RateLimiterRedis({ storeClient: client, points: 1e9, duration: 3600, keyPrefix: 'rlf' }));

  let done = 0, denied = 0, errors = 0, stop = false;
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  async function loop(limiter) {
    while (!stop) {
      const user = 'bench-' + Math.floor(Math.random() * users);
      try {
        await limiter.consume(user, 1);
        done++;
      } catch (rejection) {
        if (rejection instanceof Error) errors++; else { done++; denied++; }
      }
    }
  }
  const loops = [];
  for (const limiter of limiters) for (let i = 0; i < pipeline; i++) loops.push(loop(limiter));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  stop = true;
  await Promise.all(loops);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  console.log(JSON.stringify({
    ops: done, denied, errors, seconds: elapsed, ops_per_sec: done / elapsed,
    client_cpu_us_per_op: (cpu.user + cpu.system) / Math.max(1, done),
  }));
  clients.forEach((client) => client.disconnect());
}

main().catch((error) => { console.error(error); process.exit(3); });
