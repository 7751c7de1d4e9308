'use strict';
// The shared conformance suite (conformance/cases), one test per case.
const test = require('node:test');
const path = require('node:path');
const assert = require('node:assert/strict');
const { runCase, listCases, Servers, CASES_DIR } = require('./conformance/runner');

const files = listCases();

test('conformance', { skip: files.length === 0 && `no cases in ${CASES_DIR}` }, async (t) => {
  const servers = new Servers();
  t.after(() => servers.close());
  for (const file of files) {
    await t.test(path.basename(file), async (c) => {
      const { status, message } = await runCase(file, servers);
      if (status === 'skip') c.skip(message);
      else assert.equal(status, 'pass', message);
    });
  }
});
