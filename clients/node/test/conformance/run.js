#!/usr/bin/env node
'use strict';
// The Node client's conformance runner: every case of conformance/cases (or the files named),
// one line each, `PASS <file>`, `FAIL <file>: step N: <field> expected <x> got <y>` or
// `SKIP <file>: <why>`, then `N passed, M failed[, K skipped]`; exits 1 on any failure.
//
//   node test/conformance/run.js [--no-cluster] [case.json...]
const path = require('node:path');
const { runCase, listCases, Servers } = require('./runner');

async function main() {
  const args = process.argv.slice(2);
  const cluster = !args.includes('--no-cluster');
  const named = args.filter((a) => !a.startsWith('--'));
  const files = named.length ? named.map((f) => path.resolve(f)) : listCases();
  const servers = new Servers();
  const counts = { pass: 0, fail: 0, skip: 0 };
  try {
    for (const file of files) {
      const { status, message } = await runCase(file, servers, { cluster });
      counts[status]++;
      const name = path.basename(file);
      console.log(status === 'pass' ? `PASS ${name}` : `${status.toUpperCase()} ${name}: ${message}`);
    }
  } finally {
    await servers.close();
  }
  console.log(`${counts.pass} passed, ${counts.fail} failed${counts.skip ? `, ${counts.skip} skipped` : ''}`);
  process.exitCode = counts.fail ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
