// The closed loop every Node.js load here runs, shaped like `tollgatectl bench hit`: C
// connections, P calls in flight per connection, user ids drawn at random from U, for S
// seconds; prints one JSON line. `decide(worker, user)` makes one decision on worker i's
// connection and resolves true when allowed (a refusal may also reject with a non-Error).
// With --reset-stats, CONFIG RESETSTAT is sent on `admin` just before the clock starts, so
// INFO commandstats afterwards holds the load's commands only (no set-up, no script loads).
'use strict';

function option(name, fallback) {
  const at = process.argv.indexOf('--' + name);
  return at > 0 ? process.argv[at + 1] : fallback;
}

function options() {
  return {
    port: Number(option('port', 6379)),
    connections: Number(option('connections', 8)),
    pipeline: Number(option('pipeline', 16)),
    users: Number(option('users', 1000)),
    seconds: Number(option('seconds', 5)),
  };
}

async function runLoad({ connections, pipeline, users, seconds }, workers, decide, admin) {
  let done = 0, denied = 0, errors = 0, stop = false;
  let lastError = null;
  async function loop(worker) {
    while (!stop) {
      const user = 'bench-' + Math.floor(Math.random() * users);
      try {
        if (!(await decide(worker, user))) denied++;
        done++;
      } catch (rejection) {
        if (rejection instanceof Error) {
          errors++;
          lastError = rejection.message;
        } else {
          done++;
          denied++;
        }
      }
    }
  }
  const loops = [];
  for (let i = 0; i < connections; i++) for (let k = 0; k < pipeline; k++) loops.push(loop(workers[i]));
  // A second unmeasured first: connections warm, code compiled, as in a running application.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (admin && process.argv.includes('--reset-stats')) await admin.config('RESETSTAT');
  const from = { done, denied, errors };
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const ops = done - from.done;
  stop = true;
  await Promise.all(loops);
  console.log(JSON.stringify({
    ops, denied: denied - from.denied, errors: errors - from.errors, last_error: lastError, seconds: elapsed,
    ops_per_sec: ops / elapsed, client_cpu_us_per_op: (cpu.user + cpu.system) / Math.max(1, ops),
  }));
}

module.exports = { option, options, runLoad };
