'use strict';
// A Fastify plugin: an onRequest hook that counts each request with limiter.hit(action,
// key(request)); a refused one gets 429, the header fields and the policy's message. It
// applies to the routes of the context it is registered in (and, unencapsulated, its parent's).
const { requestLimit } = require('./common');

/**
 * fastify.register(fastifyLimit, { limiter, action, key: (request) => id, skip?, cost?, message?, statusCode? })
 */
function fastifyLimit(fastify, options, done) {
  let decide;
  try {
    decide = requestLimit(options);
  } catch (error) {
    done(error);
    return;
  }
  fastify.addHook('onRequest', async (request, reply) => {
    const outcome = await decide(request);
    if (!outcome) return;
    request.rateLimit = outcome.decision;
    reply.headers(outcome.headers);
    if (outcome.refused) {
      reply.code(outcome.statusCode).type('text/plain; charset=utf-8').send(outcome.body);
      return reply;
    }
  });
  done();
}
// Not encapsulated (as fastify-plugin would mark it): the hook covers the routes of the
// context that registers it.
fastifyLimit[Symbol.for('skip-override')] = true;
fastifyLimit[Symbol.for('fastify.display-name')] = 'tollgate';

module.exports = { fastifyLimit };
