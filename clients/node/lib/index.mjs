// ESM entry: the same objects as require('tollgate').
import tollgate from './index.js';

export const {
  Limiter, Decision, InsuranceLimiter, rateLimitHeaders, escapeId, policyFromFields, SCRIPT_CONTRACT,
  expressLimit, fastifyLimit, TollgateError, InvalidError, CorruptError, NoPolicyError, BadPolicyError,
  ContractError, NoPermError, UnavailableError, ConflictError, NotFoundError,
} = tollgate;
export default tollgate;
