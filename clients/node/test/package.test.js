'use strict';
// The package ships the build's assembled scripts byte for byte, in the tree and in the
// tarball; its types compile; CommonJS and ESM give the same objects.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = path.join(__dirname, '..');
const buildLua = path.join(process.env.TOLLGATE_BUILD_DIR || path.join(here, '..', '..', 'build'), 'lua');
const tarball = process.env.TOLLGATE_NODE_TARBALL;

function scriptsOf(dir) {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.lua')).sort();
}

test("the package's scripts are the build's", () => {
  const built = scriptsOf(buildLua);
  assert.ok(built.includes('hit.lua'), `no assembled scripts in ${buildLua}`);
  assert.deepEqual(scriptsOf(path.join(here, 'lua')), built);
  for (const file of built) {
    assert.ok(fs.readFileSync(path.join(here, 'lua', file)).equals(fs.readFileSync(path.join(buildLua, file))),
      `lua/${file} differs from ${buildLua}/${file}: run package.sh, never edit the copy`);
  }
});

test("the tarball's scripts are the build's", { skip: !tarball && 'no tarball (test.sh makes one)' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-pack-'));
  try {
    execFileSync('tar', ['xzf', tarball, '-C', dir]);
    const packed = path.join(dir, 'package');
    for (const file of ['package.json', 'README.md', 'lib/index.js', 'lib/index.mjs', 'lib/index.d.ts']) {
      assert.ok(fs.existsSync(path.join(packed, file)), `${file} is not in the tarball`);
    }
    assert.deepEqual(scriptsOf(path.join(packed, 'lua')), scriptsOf(buildLua));
    for (const file of scriptsOf(buildLua)) {
      assert.ok(fs.readFileSync(path.join(packed, 'lua', file)).equals(fs.readFileSync(path.join(buildLua, file))), file);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the declarations compile against a typed use of the API', () => {
  const tsc = path.join(here, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '--noEmit', '-p', path.join(__dirname, 'types')], { stdio: 'pipe' });
});

test('require and import give the same objects', async () => {
  const required = require('tollgate');
  const imported = await import('tollgate');
  assert.equal(imported.Limiter, required.Limiter);
  assert.equal(imported.default, required);
  assert.equal(typeof imported.expressLimit, 'function');
});
