'use strict';
// An Express app and a Fastify app (examples/) installed from the packed tarball, as a user
// installs it, limit requests against a private redis-server: 429, the header fields and the
// policy's message; a skipped route is never counted.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Redis = require('ioredis');
const { Limiter } = require('..');
const { startRedis, freePort } = require('./support/redis');

const tarball = process.env.TOLLGATE_NODE_TARBALL;
const here = path.join(__dirname, '..');

async function startApp(dir, file, env) {
  const child = spawn(process.execPath, [path.join(dir, file)], {
    cwd: dir,
    // express, fastify and ioredis come from the package's own devDependencies; tollgate
    // only from the tarball installed in `dir`.
    env: { ...process.env, ...env, NODE_PATH: path.join(here, 'node_modules') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    child.stdout.on('data', (chunk) => { if (String(chunk).includes('listening')) resolve(); });
  });
  return child;
}

test('Express and Fastify apps from the tarball answer 429 with the header fields', { skip: !tarball && 'no tarball (test.sh makes one)' }, async (t) => {
  const server = await startRedis();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-apps-'));
  const children = [];
  const redis = new Redis({ port: server.port });
  t.after(async () => {
    for (const child of children) child.kill();
    redis.disconnect();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name": "apps", "private": true}');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', '--loglevel', 'error', tarball], { cwd: dir, stdio: 'pipe' });
  assert.ok(fs.existsSync(path.join(dir, 'node_modules', 'tollgate', 'lua', 'hit.lua')));
  const admin = new Limiter(redis, { subscribe: false });
  await admin.savePolicy('api', { windows: '60000:3', message: 'Too many requests, slow down' }, { actor: 'tests' });

  for (const file of ['express-app.js', 'fastify-app.js']) {
    await t.test(file, async () => {
      fs.copyFileSync(path.join(here, 'examples', file), path.join(dir, file));
      const port = await freePort();
      children.push(await startApp(dir, file, { REDIS_URL: `redis://127.0.0.1:${server.port}`, PORT: String(port) }));
      const key = `key-${file}`;
      const get = (route, apiKey = key) => fetch(`http://127.0.0.1:${port}${route}`, { headers: { 'x-api-key': apiKey } });
      for (let i = 0; i < 5; i++) assert.equal((await get('/health')).status, 200);
      for (let i = 1; i <= 3; i++) {
        const ok = await get('/hello');
        assert.equal(ok.status, 200);
        assert.equal(await ok.text(), `hello, ${3 - i} left`);
        assert.equal(ok.headers.get('ratelimit-policy'), '"api-1m";q=3;w=60');
        assert.equal(ok.headers.get('ratelimit'), `"api-1m";r=${3 - i};t=60`);
      }
      const refused = await get('/hello');
      assert.equal(refused.status, 429);
      assert.equal(await refused.text(), 'Too many requests, slow down');
      assert.match(refused.headers.get('ratelimit'), /^"api-1m";r=0;t=(59|60)$/);
      assert.match(refused.headers.get('retry-after'), /^(59|60)$/);
      assert.equal((await get('/hello', 'someone else')).status, 200);
      assert.equal(await redis.get(`tg:{${key}}:api:fw:60000`), '3');
    });
  }
});
