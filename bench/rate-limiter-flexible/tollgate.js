// A closed-loop load (load.js) on Tollgate's Node.js client, or (--bare) on a bare EVALSHA
// loop of the very call the client sends: hit.lua's short form for a fixed window of 1e9 per
// hour (every hit allowed), one ioredis connection per worker, keys built per call as the
// client builds them. The policy `bench` must be stored first (this script stores it).
//
//   node tollgate.js --port 6379 [--bare] [--reset-stats] [--connections 8] [--pipeline 16] [--users 1000] [--seconds 5]
//                    [--package clients/node] [--scripts build/lua]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const Redis = require('ioredis');
const { option, options, runLoad } = require('./load');

const root = path.join(__dirname, '..', '..');
const { Limiter } = require(path.resolve(option('package', path.join(root, 'clients', 'node'))));
const scriptsDir = path.resolve(option('scripts', path.join(root, 'build', 'lua')));
const bare = process.argv.includes('--bare');
const POLICY = { algorithm: 'fixed_window', windows: '3600000:1000000000' };

async function main() {
  const load = options();
  const clients = [];
  for (let i = 0; i < load.connections; i++) {
    const client = new Redis({ host: '127.0.0.1', port: load.port, enableOfflineQueue: false, lazyConnect: true });
    await client.connect();
    clients.push(client);
  }
  const admin = new Limiter(clients[0], { subscribe: false, scriptsDir });
  await admin.savePolicy('bench', POLICY, { actor: 'bench' });
  if (bare) {
    const source = fs.readFileSync(path.join(scriptsDir, 'hit.lua'), 'utf8');
    const sha = crypto.createHash('sha1').update(source).digest('hex');
    await clients[0].script('LOAD', source);
    await runLoad(load, clients, async (client, user) => {
      const reply = await client.evalsha(sha, 4, `tg:{${user}}:ban`, `tg:{${user}}:bench:ban`, `tg:{${user}}:overrides`,
        `tg:{${user}}:bench:fw:3600000`, 'hit', 'fixed_window', '1', '1000000000', '3600000');
      return reply[0] === 1;
    }, clients[0]);
  } else {
    const limiters = clients.map((client) => new Limiter(client, { scriptsDir }));
    for (const limiter of limiters) await limiter.hit('bench', 'warm-up');
    await runLoad(load, limiters, async (limiter, user) => (await limiter.hit('bench', user)).allowed, clients[0]);
    limiters.forEach((limiter) => limiter.close());
  }
  clients.forEach((client) => client.disconnect());
}

main().catch((error) => { console.error(error); process.exit(3); });
