'use strict';
// Typed errors: one class per kind of failure, each with `kind` (the conformance suite's name).
// Redis' error replies are classified in one place, classify() below.

class TollgateError extends Error {
  constructor(message, kind, options) {
    super(message, options);
    this.name = new.target.name;
    this.kind = kind;
  }
}
/** A bad argument: the client's own check, or TG_INVALID from a script. */
class InvalidError extends TollgateError { constructor(m, o) { super(m, 'invalid', o); } }
/** A key of ours holds a value of the wrong shape (TG_CORRUPT, WRONGTYPE). */
class CorruptError extends TollgateError { constructor(m, o) { super(m, 'corrupt', o); } }
/** No policy is stored for the action (and none was given inline). */
class NoPolicyError extends TollgateError {
  constructor(action, o) {
    super(`no policy for action '${action}'`, 'no_policy', o);
    this.action = action;
  }
}
/** The stored policy hash is malformed. */
class BadPolicyError extends TollgateError { constructor(m, o) { super(m, 'bad_policy', o); } }
/** A policy hash or script of another script contract (lua/README.md, "Contract version"). */
class ContractError extends TollgateError { constructor(m, o) { super(m, 'contract', o); } }
/** The ACL user may not run a write the call needs (TG_NOPERM, NOPERM). */
class NoPermError extends TollgateError { constructor(m, o) { super(m, 'noperm', o); } }
/** Redis did not answer in time, or is not there; the failure policy was `report`. */
class UnavailableError extends TollgateError { constructor(m, o) { super(m, 'unavailable', o); } }
/** A policy revision mismatch (TG_CONFLICT). */
class ConflictError extends TollgateError { constructor(m, o) { super(m, 'conflict', o); } }
/** What the call names does not exist (TG_NOTFOUND). */
class NotFoundError extends TollgateError { constructor(m, o) { super(m, 'not_found', o); } }

// Replies that mean the server cannot answer now, not that the call is wrong.
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY)\b/;

/** The typed error for what ioredis rejected a call with; TG_OVERRIDE and NOSCRIPT are not handled here. */
function classify(error) {
  if (error instanceof TollgateError) return error;
  const message = String(error && error.message);
  const isReply = error && error.name === 'ReplyError';
  if (!isReply || UNAVAILABLE_REPLIES.test(message)) {
    return new UnavailableError(`Redis is unavailable: ${message}`, { cause: error });
  }
  const options = { cause: error };
  if (message.startsWith('TG_INVALID')) return new InvalidError(message, options);
  if (message.startsWith('TG_CORRUPT') || message.startsWith('WRONGTYPE')) return new CorruptError(message, options);
  if (message.startsWith('TG_NOPERM') || message.startsWith('NOPERM')) return new NoPermError(message, options);
  if (message.startsWith('TG_CONTRACT')) return new ContractError(message, options);
  if (message.startsWith('TG_CONFLICT')) return new ConflictError(message, options);
  if (message.startsWith('TG_NOTFOUND')) return new NotFoundError(message, options);
  return new TollgateError(message, 'redis', options);
}

module.exports = {
  TollgateError, InvalidError, CorruptError, NoPolicyError, BadPolicyError, ContractError,
  NoPermError, UnavailableError, ConflictError, NotFoundError, classify,
};
