// Tollgate's Node.js client against rate-limiter-flexible and a bare EVALSHA loop, in one
// process on one redis-server, each load on connections of its own (8 x 16 in flight by
// default) over the same random users, every decision allowed:
//   node     Limiter.hit() of clients/node over ioredis (a stored fixed window of 1e9 per hour)
//   evalsha  a bare ioredis EVALSHA loop of the very call the client sends (hit.lua's short form)
//   rlf      rate-limiter-flexible's RateLimiterRedis.consume() over ioredis (1e9 points per hour)
//   ctl      `tollgatectl bench hit` (the C++ client, its own process), with --tollgatectl
// After a warm-up of every load (code compiled, connections and keys made), each round gives
// every Node.js load `--slice` seconds in turns of `--turn` seconds (A B C A B C ...), so the
// loads of a round share the same moments of a machine whose speed moves; a ratio is taken
// within each round and the median of the rounds is printed with their range. tollgatectl,
// a process of its own that runs whole seconds, takes turns of a second with
// rate-limiter-flexible in rounds of their own after those. Per load: decisions/s, the Redis
// server's µs per decision in scripts (INFO commandstats after CONFIG RESETSTAT: the usec of
// the script calls) and in all (INFO cpu: reading, parsing and answering commands too), and the
// client's CPU per decision (process.cpuUsage of this process; tollgatectl's own figure).
//
//   node compare.js --port 6379 --scripts build/lua [--connections 8] [--pipeline 16] [--users 1000]
//                   [--slice 2] [--turn 0.1] [--rounds 15] [--warmup 2] [--tollgatectl build/app/tollgatectl]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawnSync } = require('node:child_process');
const Redis = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { option, runFor } = require('./load');

const root = path.join(__dirname, '..', '..');
const { Limiter } = require(path.resolve(option('package', path.join(root, 'clients', 'node'))));
const port = Number(option('port', 6379));
const scriptsDir = path.resolve(option('scripts', path.join(root, 'build', 'lua')));
const connections = Number(option('connections', 8));
const pipeline = Number(option('pipeline', 16));
const users = Number(option('users', 1000));
const slice = Number(option('slice', 2));
const turn = Number(option('turn', 0.1));
const rounds = Number(option('rounds', 15));
const warmup = Number(option('warmup', 2));
const ctl = option('tollgatectl', '');
const POLICY = { algorithm: 'fixed_window', windows: '3600000:1000000000' };

async function connect() {
  const client = new Redis({ host: '127.0.0.1', port, enableOfflineQueue: false, lazyConnect: true });
  await client.connect();
  return client;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// What the server did since the last CONFIG RESETSTAT: µs in scripts (each load decides with
// one script call, EVALSHA or EVAL after a NOSCRIPT, whose usec includes the commands it runs;
// commandstats lists those again on lines of their own, so they are not added), and the
// process' CPU so far (INFO cpu).
async function serverFigures(admin) {
  const info = await admin.info('commandstats') + await admin.info('cpu');
  let scriptUs = 0;
  for (const match of info.matchAll(/^cmdstat_eval[a-z_]*:.*?usec=(\d+),/gm)) scriptUs += Number(match[1]);
  const seconds = (name) => Number((info.match(new RegExp(`^${name}:([0-9.]+)`, 'm')) || [0, 0])[1]);
  return { scriptUs, cpuUs: (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1e6 };
}

async function nodeLoads() {
  const loads = {};
  const set = async () => Promise.all(Array.from({ length: connections }, connect));

  const tollgate = await set();
  const limiters = tollgate.map((client) => new Limiter(client, { scriptsDir }));
  await limiters[0].savePolicy('bench', POLICY, { actor: 'bench' });
  loads.node = { decide: async (limiter, user) => (await limiter.hit('bench', user)).allowed, workers: limiters };

  const bare = await set();
  const source = fs.readFileSync(path.join(scriptsDir, 'hit.lua'), 'utf8');
  const sha = crypto.createHash('sha1').update(source).digest('hex');
  await bare[0].script('LOAD', source);
  loads.evalsha = {
    decide: async (client, user) => {
      const reply = await client.evalsha(sha, 4, `tg:{${user}}:ban`, `tg:{${user}}:bench:ban`, `tg:{${user}}:overrides`,
        `tg:{${user}}:bench:fw:3600000`, 'hit', 'fixed_window', '1', '1000000000', '3600000');
      return reply[0] === 1;
    },
    workers: bare,
  };

  const rlf = await set();
  loads.rlf = {
    decide: async (limiter, user) => (await limiter.consume(user, 1), true),
    workers: rlf.map((client) => new RateLimiterRedis({ storeClient: client, points: 1e9, duration: 3600, keyPrefix: 'rlf' })),
  };
  const close = () => {
    limiters.forEach((limiter) => limiter.close());
    [...tollgate, ...bare, ...rlf].forEach((client) => client.disconnect());
  };
  return { loads, close };
}

const emptyTally = () => ({ ops: 0, seconds: 0, cpuUs: 0, decisions: 0, scriptUs: 0, serverCpuUs: 0 });

// One turn of a load, added to its tally of the round.
async function play(name, load, seconds, admin, tally) {
  await admin.config('RESETSTAT');
  const before = await serverFigures(admin);
  if (name === 'ctl') {
    const run = spawnSync(ctl, ['--url', `redis://127.0.0.1:${port}`, '--json', 'bench', 'hit', '--connections',
      String(connections), '--pipeline', String(pipeline), '--users', String(users), '--seconds', String(seconds)],
    { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`tollgatectl bench hit: ${run.stderr}`);
    const r = JSON.parse(run.stdout.trim().split('\n').pop());
    Object.assign(r, { seconds: r.seconds, cpuUs: r.client_cpu_us_per_hit * r.ops, settled: r.ops });
    return add(tally, r, before, await serverFigures(admin));
  }
  const r = await runFor(seconds, load.workers, pipeline, users, load.decide);
  if (r.errors) throw new Error(`${name}: ${r.errors} errors, the last: ${r.lastError}`);
  return add(tally, r, before, await serverFigures(admin));
}

function add(tally, r, before, after) {
  tally.ops += r.ops;
  tally.seconds += r.seconds;
  tally.cpuUs += r.cpuUs;
  tally.decisions += r.settled;
  tally.scriptUs += after.scriptUs;
  tally.serverCpuUs += after.cpuUs - before.cpuUs;
}

const figuresOf = (t) => ({
  rate: t.ops / t.seconds,
  scriptUs: t.scriptUs / t.decisions,
  serverCpuUs: t.serverCpuUs / t.decisions,
  cpuUs: t.cpuUs / t.ops,
});

// Rounds of `names` taking turns of `seconds`, `turns` each a round, the order turning by
// round; one { name: figures } a round.
async function playRounds(names, loads, count, turns, seconds, admin) {
  const results = [];
  for (let round = 0; round < count; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    const tallies = Object.fromEntries(names.map((name) => [name, emptyTally()]));
    for (let k = 0; k < turns; k++) {
      for (const name of order) await play(name, loads[name], seconds, admin, tallies[name]);
    }
    const result = Object.fromEntries(names.map((name) => [name, figuresOf(tallies[name])]));
    results.push(result);
    process.stderr.write(`round ${round + 1}: ${names.map((n) => `${n} ${result[n].rate.toFixed(0)}/s`).join(' ')}\n`);
  }
  return results;
}

const summary = (results, name) => Object.fromEntries(
  ['rate', 'scriptUs', 'serverCpuUs', 'cpuUs'].map((key) => [key, median(results.map((r) => r[name][key]))]));

function ratio(results, a, b) {
  const each = results.map((r) => r[a].rate / r[b].rate);
  return { median: median(each), min: Math.min(...each), max: Math.max(...each) };
}

async function main() {
  const admin = await connect();
  const { loads, close } = await nodeLoads();
  const names = Object.keys(loads);
  for (const name of names) {
    const load = loads[name];
    for (let u = 0; u < users; u++) await load.decide(load.workers[u % connections], 'bench-' + u);
    await runFor(warmup, load.workers, pipeline, users, load.decide);
  }
  const results = await playRounds(names, loads, rounds, Math.max(1, Math.round(slice / turn)), turn, admin);
  const figures = Object.fromEntries(names.map((name) => [name, summary(results, name)]));
  const ratios = { 'node/evalsha': ratio(results, 'node', 'evalsha'), 'node/rlf': ratio(results, 'node', 'rlf') };
  if (ctl) {
    const ctlRounds = await playRounds(['rlf', 'ctl'], loads, Math.max(3, Math.round(rounds / 3)), 1, 1, admin);
    figures.ctl = summary(ctlRounds, 'ctl');
    ratios['ctl/rlf'] = ratio(ctlRounds, 'ctl', 'rlf');
  }
  close();
  admin.disconnect();

  const rlfVersion = require('rate-limiter-flexible/package.json').version;
  const labels = {
    node: 'Tollgate Node.js client, Limiter.hit()',
    evalsha: 'bare EVALSHA loop, the same hit.lua call',
    rlf: `rate-limiter-flexible ${rlfVersion} consume()`,
    ctl: 'tollgatectl bench hit (C++ client)',
  };
  console.log(`\nmedians of ${rounds} rounds of ${slice} s a load in turns of ${turn} s, ${connections} connections x ` +
    `${pipeline} in flight, ${users} random users:`);
  console.log(`${'load'.padEnd(44)} ${'decisions/s'.padStart(11)} ${'script µs'.padStart(10)} ` +
    `${'server CPU µs'.padStart(14)} ${'client CPU µs'.padStart(14)}`);
  for (const [name, f] of Object.entries(figures)) {
    console.log(`${labels[name].padEnd(44)} ${f.rate.toFixed(0).padStart(11)} ${f.scriptUs.toFixed(2).padStart(10)} ` +
      `${f.serverCpuUs.toFixed(1).padStart(14)} ${f.cpuUs.toFixed(1).padStart(14)}`);
  }
  console.log('(per decision: script µs from INFO commandstats, server CPU from INFO cpu, client CPU of the load\'s process)');
  const goals = { 'node/evalsha': ' (goal >= 0.9)', 'node/rlf': ' (goal >= 1.5)', 'ctl/rlf': ' (rounds of 1 s turns)' };
  console.log('\ndecisions/s, ratio within a round, median (range):');
  for (const [pair, r] of Object.entries(ratios)) {
    console.log(`${pair.padEnd(14)} ${r.median.toFixed(2)} (${r.min.toFixed(2)}-${r.max.toFixed(2)})${goals[pair]}`);
  }
}

main().catch((error) => { console.error(error); process.exit(3); });
