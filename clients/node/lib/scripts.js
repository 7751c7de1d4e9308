'use strict';
// The assembled scripts this package ships (lua/, copied from the build), called by SHA with
// EVALSHA; on NOSCRIPT (a restart, a failover, SCRIPT FLUSH, a proxy that forwards EVAL but not
// SCRIPT LOAD) the same call goes once more as EVAL, which also loads the script.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ContractError, classify } = require('./errors');
const { SCRIPT_CONTRACT } = require('./policy');

const DEFAULT_DIR = path.join(__dirname, '..', 'lua');
const NAMES = ['hit', 'refund', 'ban', 'unban', 'reset', 'override_set', 'override_delete', 'policy_set', 'policy_delete'];

class Script {
  constructor(name, source) {
    this.name = name;
    this.source = source;
    this.sha = crypto.createHash('sha1').update(source).digest('hex');
  }
}

/** Reads the scripts of `dir`; ContractError when one names another contract in its header. */
function loadScripts(dir = DEFAULT_DIR) {
  const scripts = {};
  for (const name of NAMES) {
    const file = path.join(dir, `${name}.lua`);
    let source;
    try {
      source = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new ContractError(`cannot read ${file}: the package ships the assembled scripts in lua/ (${error.code})`, { cause: error });
    }
    const header = /^Contract: (\d+)/m.exec(source.slice(0, 20000));
    if (!header || Number(header[1]) !== SCRIPT_CONTRACT) {
      throw new ContractError(`${file} follows script contract ${header ? header[1] : '(none named)'}, this client contract ${SCRIPT_CONTRACT}`);
    }
    scripts[name] = new Script(name, source);
  }
  return scripts;
}

function isNoScript(error) {
  return error && typeof error.message === 'string' && error.message.startsWith('NOSCRIPT');
}

/**
 * Runs `script` with `keys` and `args` (one flat array: KEYS then ARGV, `keyCount` of them
 * keys); `readOnly` uses EVALSHA_RO. Rejects with ioredis' own error (classify() types it).
 */
function run(redis, script, keyCount, keysAndArgs, readOnly) {
  const call = readOnly
    ? redis.call('evalsha_ro', script.sha, keyCount, ...keysAndArgs)
    : redis.evalsha(script.sha, keyCount, ...keysAndArgs);
  return call.catch((error) => {
    if (!isNoScript(error)) throw error;
    return readOnly
      ? redis.call('eval_ro', script.source, keyCount, ...keysAndArgs)
      : redis.eval(script.source, keyCount, ...keysAndArgs);
  });
}

/** The start-up check of lua/README.md: hit.lua asked for its contract must answer ours. */
async function checkContract(redis, scripts) {
  let answer;
  try {
    answer = await run(redis, scripts.hit, 0, ['contract'], false);
  } catch (error) {
    throw classify(error);
  }
  if (Number(answer) !== SCRIPT_CONTRACT) {
    throw new ContractError(`the server's hit.lua answers script contract ${answer}, this client speaks contract ${SCRIPT_CONTRACT}: load the scripts this package ships`);
  }
}

module.exports = { loadScripts, run, checkContract, isNoScript, DEFAULT_DIR };
