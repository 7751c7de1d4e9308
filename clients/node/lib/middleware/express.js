'use strict';
// Express middleware: counts each request with limiter.hit(action, key(req)); a refused one
// gets 429, the RateLimit / RateLimit-Policy / Retry-After fields and the policy's message.
const { requestLimit } = require('./common');

/**
 * @param options { limiter, action, key: (req) => id, skip?: (req) => boolean, cost?, message?, statusCode? }
 */
function expressLimit(options) {
  const decide = requestLimit(options);
  return function tollgateLimit(req, res, next) {
    decide(req).then((outcome) => {
      if (!outcome) return next();
      req.rateLimit = outcome.decision;
      res.set(outcome.headers);
      if (!outcome.refused) return next();
      res.status(outcome.statusCode).type('text/plain').send(outcome.body);
    }, next);
  };
}

module.exports = { expressLimit };
