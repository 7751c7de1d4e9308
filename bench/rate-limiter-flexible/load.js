// The closed loop every Node.js load here runs, shaped like `tollgatectl bench hit`: P calls in
// flight on each of the workers (one per connection), user ids drawn at random from U.
// `decide(worker, user)` makes one decision on the worker's connection and resolves true when
// allowed (a refusal may also reject with a non-Error).
'use strict';

function option(name, fallback) {
  const at = process.argv.indexOf('--' + name);
  return at > 0 ? process.argv[at + 1] : fallback;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the loops for `seconds` and counts what was decided by then; resolves once the calls
 * still in flight have settled too: { ops (by the end of the time), seconds, cpuUs (this
 * process' CPU over the time), settled (every decision, those in flight at the end included),
 * errors, lastError }.
 */
async function runFor(seconds, workers, pipeline, users, decide) {
  let done = 0, errors = 0, lastError = null, stop = false;
  async function loop(worker) {
    while (!stop) {
      const user = 'bench-' + Math.floor(Math.random() * users);
      try {
        await decide(worker, user);
        done++;
      } catch (rejection) {
        if (rejection instanceof Error) {
          errors++;
          lastError = rejection.message;
        } else {
          done++;
        }
      }
    }
  }
  const loops = [];
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (const worker of workers) for (let k = 0; k < pipeline; k++) loops.push(loop(worker));
  await sleep(seconds * 1000);
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const ops = done;
  stop = true;
  await Promise.all(loops);
  return { ops, seconds: elapsed, cpuUs: cpu.user + cpu.system, settled: done, errors, lastError };
}

module.exports = { option, sleep, runFor };
