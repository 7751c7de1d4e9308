'use strict';
// What the Express middleware and the Fastify plugin share: the options, and the decision for
// one request with its header fields.
const { InvalidError } = require('../errors');

/** Checks the options; `key` (request -> id) is the application's: a user id, an API key, an address. */
function requestLimit(options) {
  const { limiter, action, key, skip, cost, message = 'Too Many Requests', statusCode = 429 } = options || {};
  if (!limiter || typeof limiter.hit !== 'function') throw new InvalidError('rate limit middleware needs a tollgate Limiter');
  if (typeof action !== 'string' && typeof action !== 'function') throw new InvalidError('rate limit middleware needs an action (a name, or a function of the request)');
  if (typeof key !== 'function') throw new InvalidError('rate limit middleware needs key: a function of the request giving the id to limit');
  return async (request) => {
    if (skip && (await skip(request))) return null;
    const id = await key(request);
    const name = typeof action === 'function' ? await action(request) : action;
    const weight = typeof cost === 'function' ? await cost(request) : cost;
    const decision = await limiter.hit(name, String(id), weight === undefined ? undefined : { cost: weight });
    return {
      decision,
      headers: decision.headers(),
      refused: !decision.allowed,
      statusCode,
      body: decision.message || message,
    };
  };
}

module.exports = { requestLimit };
