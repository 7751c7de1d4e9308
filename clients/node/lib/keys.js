'use strict';
// The key schema of lua/README.md ("Conventions"): every client escapes ids the same way, so a
// user hit from Node, Python or the C++ library has one set of keys.
const { InvalidError } = require('./errors');

const MAX_ID_BYTES = 1024;
// ASCII bytes that stay raw; every other ASCII byte is written %XX.
const PLAIN = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.@+=!~,;#&$()\'/<>|^`"') {
  PLAIN[c.charCodeAt(0)] = 1;
}
const PLAIN_TEXT = /^[A-Za-z0-9\-_.@+=!~,;#&$()'/<>|^`"]*$/;
const HEX = '0123456789ABCDEF';

function percent(byte) {
  return '%' + HEX[byte >> 4] + HEX[byte & 15];
}

// Length of the well-formed UTF-8 sequence at bytes[i] (no overlong forms, no surrogates,
// nothing above U+10FFFF), 0 when there is none.
function utf8Length(bytes, i) {
  const c = bytes[i];
  let length, low = 0x80, high = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) length = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c === 0xe0) low = 0xa0;
    if (c === 0xed) high = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c === 0xf0) low = 0x90;
    if (c === 0xf4) high = 0x8f;
  } else return 0;
  if (i + length > bytes.length || bytes[i + 1] < low || bytes[i + 1] > high) return 0;
  for (let k = 2; k < length; k++) if (bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return 0;
  return length;
}

/** The escaped form of an id (a string is its UTF-8 bytes; a Buffer is taken as bytes). */
function escapeId(id) {
  if (typeof id === 'string') {
    if (PLAIN_TEXT.test(id)) return id;
    // A JS string encodes to well-formed UTF-8 (a lone surrogate becomes U+FFFD, as it is
    // sent): only ASCII outside the plain set needs escaping.
    let out = '';
    for (const ch of id) {
      const code = ch.charCodeAt(0);
      out += code < 0x80 && !PLAIN[code] ? percent(code) : ch;
    }
    return out;
  }
  const bytes = id;
  const parts = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c < 0x80) {
      parts.push(PLAIN[c] ? String.fromCharCode(c) : percent(c));
      continue;
    }
    const length = utf8Length(bytes, i);
    if (length) {
      parts.push(bytes.toString('utf8', i, i + length));
      i += length - 1;
    } else parts.push(percent(c));
  }
  return parts.join('');
}

function byteLength(id) {
  return typeof id === 'string' ? Buffer.byteLength(id) : id.length;
}

/** InvalidError unless `id` is a string or Buffer of 1..1024 bytes. */
function checkId(id, what) {
  if (typeof id !== 'string' && !Buffer.isBuffer(id)) {
    throw new InvalidError(`${what} must be a string or a Buffer`);
  }
  const length = byteLength(id);
  if (length === 0) throw new InvalidError(`${what} must not be empty`);
  if (length > MAX_ID_BYTES) {
    throw new InvalidError(`${what} is ${length} bytes long; at most ${MAX_ID_BYTES} bytes are allowed`);
  }
}

/** InvalidError unless the prefix keeps lua/README.md's rule (printable ASCII, 1..64 bytes, none of : * ? [ ] \ { } %). */
function checkPrefix(prefix) {
  if (typeof prefix !== 'string' || prefix.length < 1 || prefix.length > 64 || !/^[\x21-\x7e]*$/.test(prefix) ||
      /[*?[\]\\{}%:]/.test(prefix)) {
    throw new InvalidError(`key prefix '${prefix}' must be 1 to 64 bytes of printable ASCII other than : * ? [ ] \\ { } %`);
  }
}

const ALGORITHM_CODES = { fixed_window: 'fw', sliding_log: 'sl', sliding_window: 'sw', token_bucket: 'tb' };

/**
 * The keys of one prefix in one layout: standalone, or Redis Cluster, where the policy keys
 * share the fixed hash tag {:} and a script's global audit stream is the call's own again.
 */
class KeySchema {
  constructor(prefix, cluster) {
    checkPrefix(prefix);
    this.prefix = prefix;
    this.cluster = cluster;
    this.policyBase = cluster ? `${prefix}:{:}:` : `${prefix}:`;
    this.events = `${prefix}:events`;
    this.audit = `${this.policyBase}audit`;
    this.policies = `${this.policyBase}policies`;
    this.overrideIndex = `${this.policyBase}overrides`;
  }
  userBase(escapedUser) { return `${this.prefix}:{${escapedUser}}`; }
  policyKey(action) { return `${this.policyBase}policy:${escapeId(action)}`; }
  policyHistoryKey(action) { return `${this.policyKey(action)}:history`; }
  userBanKey(escapedUser) { return `${this.userBase(escapedUser)}:ban`; }
  actionBanKey(escapedUser, escapedAction) { return `${this.userBase(escapedUser)}:${escapedAction}:ban`; }
  overridesKey(escapedUser) { return `${this.userBase(escapedUser)}:overrides`; }
  userAuditKey(escapedUser) { return `${this.userBase(escapedUser)}:audit`; }
  stateKey(escapedUser, escapedAction, algorithm, windowMs) {
    return `${this.userBase(escapedUser)}:${escapedAction}:${ALGORITHM_CODES[algorithm]}:${windowMs}`;
  }
  /** The global audit mirror of a call whose own stream is `ownStream` (lua/README.md). */
  auditMirror(ownStream) { return this.cluster ? ownStream : this.audit; }
  /** SCAN pattern of every key of a user: escaped ids hold no glob characters. */
  userPattern(escapedUser) { return `${this.userBase(escapedUser)}:*`; }
}

module.exports = { escapeId, checkId, checkPrefix, KeySchema, ALGORITHM_CODES, MAX_ID_BYTES };
