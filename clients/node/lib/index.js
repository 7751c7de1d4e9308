'use strict';
// tollgate: Tollgate's atomic rate-limit scripts for Node.js on ioredis.
const { Limiter } = require('./limiter');
const { Decision } = require('./decision');
const { InsuranceLimiter } = require('./insurance');
const { rateLimitHeaders } = require('./headers');
const { escapeId } = require('./keys');
const { policyFromFields, SCRIPT_CONTRACT } = require('./policy');
const errors = require('./errors');
const { expressLimit } = require('./middleware/express');
const { fastifyLimit } = require('./middleware/fastify');

module.exports = {
  Limiter, Decision, InsuranceLimiter, rateLimitHeaders, escapeId, policyFromFields,
  SCRIPT_CONTRACT, expressLimit, fastifyLimit, ...errors,
};
