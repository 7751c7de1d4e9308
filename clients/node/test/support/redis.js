'use strict';
// Private redis-servers for the tests: a free loopback port, a temporary directory, killed at
// the end. A cluster is three primaries whose bus ports (+10000) are free too.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort(needBus = false) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 35000);
    if (await portFree(port) && (!needBus || await portFree(port + 10000))) return port;
  }
  throw new Error('no free port');
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function cli(port, ...args) {
  return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

async function waitFor(check, what, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (check()) return;
    } catch (error) {
      if (/exited/.test(error.message)) throw error;
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A redis-server of its own: { port, pid, stop(), freeze(), thaw() }; another port when one is taken meanwhile. */
async function startRedis(options = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisOnce(options);
    } catch (error) {
      if (attempt >= 5 || !/exited/.test(error.message)) throw error;
    }
  }
}

async function startRedisOnce({ cluster = false, needBus = cluster }) {
  const port = await freePort(needBus);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-node-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  if (cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000');
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  // Ours, not another test's that took the port first (a FLUSHALL must never reach it).
  try {
    await waitFor(() => {
      if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited`);
      return cli(port, 'INFO', 'server').includes(`process_id:${child.pid}\r`);
    }, `redis-server on ${port}`);
  } catch (error) {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    pid: child.pid,
    freeze() { process.kill(child.pid, 'SIGSTOP'); },
    thaw() { process.kill(child.pid, 'SIGCONT'); },
    async stop() {
      try { process.kill(child.pid, 'SIGCONT'); } catch { /* gone */ }
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Three primaries, slots split, `cluster info` ok: { ports, nodes, stop() }. */
async function startCluster() {
  const nodes = [];
  for (let i = 0; i < 3; i++) nodes.push(await startRedis({ cluster: true }));
  const ports = nodes.map((n) => n.port);
  execFileSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes'], { stdio: 'ignore' });
  await waitFor(() => ports.every((p) => cli(p, 'CLUSTER', 'INFO').includes('cluster_state:ok')), 'the cluster', 30000);
  return { ports, nodes, async stop() { for (const n of nodes) await n.stop(); } };
}

/** A sentinel watching `master` (a startRedis() server) as `name`: { port, stop() }. */
async function startSentinel(master, name) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-node-sentinel-'));
  const config = path.join(dir, 'sentinel.conf');
  fs.writeFileSync(config, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
    `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`, `sentinel down-after-milliseconds ${name} 1000`, ''].join('\n'));
  const child = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
  await waitFor(() => cli(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name).includes(String(master.port)), `a sentinel on ${port}`);
  return {
    port,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startRedis, startCluster, startSentinel, freePort, sleep, cli };
