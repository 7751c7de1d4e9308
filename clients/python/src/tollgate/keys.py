"""Key names and id escaping exactly as lua/README.md "Conventions" lays them down."""
from __future__ import annotations

import re
from typing import Union

from .errors import InvalidArgument

Id = Union[str, bytes]

MAX_ID_BYTES = 1024
ALGORITHM_CODES = {
    "fixed_window": b"fw",
    "sliding_log": b"sl",
    "sliding_window": b"sw",
    "token_bucket": b"tb",
}

_PLAIN_ASCII = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.@+=!~,;#&$()'/<>|^`\""
)
_ALL_PLAIN = re.compile(rb"[A-Za-z0-9\-_.@+=!~,;#&$()'/<>|^`\"]*\Z")
# Well-formed UTF-8 of 2..4 bytes: no overlong forms, no surrogates, nothing past U+10FFFF.
_UTF8 = re.compile(
    rb"[\xC2-\xDF][\x80-\xBF]"
    rb"|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF][\x80-\xBF]{2}|\xED[\x80-\x9F][\x80-\xBF]"
    rb"|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3][\x80-\xBF]{3}|\xF4[\x80-\x8F][\x80-\xBF]{2}"
)


def as_bytes(value: Id) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def escape(raw: bytes) -> bytes:
    """Plain ASCII and well-formed UTF-8 stay; every other byte is %XX, upper-case hex."""
    if _ALL_PLAIN.match(raw):  # most ids: nothing to do
        return raw
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c < 0x80:
            if c in _PLAIN_ASCII:
                out.append(c)
            else:
                out += b"%%%02X" % c
            i += 1
            continue
        sequence = _UTF8.match(raw, i)
        if sequence:
            out += sequence.group()
            i = sequence.end()
        else:
            out += b"%%%02X" % c
            i += 1
    return bytes(out)


def check_id(value: Id, what: str) -> bytes:
    raw = value.encode("utf-8") if type(value) is str else as_bytes(value)
    if 0 < len(raw) <= MAX_ID_BYTES:
        return raw
    if not raw:
        raise InvalidArgument(f"{what} must not be empty")
    if len(raw) > MAX_ID_BYTES:
        raise InvalidArgument(
            f"{what} is {len(raw)} bytes long; at most {MAX_ID_BYTES} bytes are allowed")
    return raw


def check_prefix(prefix: str) -> bytes:
    raw = prefix.encode("ascii", "replace")
    bad = any(b <= 0x20 or b >= 0x7F or b in b"*?[]\\{}%:" for b in raw)
    if not raw or len(raw) > 64 or bad:
        raise InvalidArgument(
            f"key prefix {prefix!r} must be 1 to 64 bytes of printable ASCII other than "
            ": * ? [ ] \\ { } % (a ':' would let two prefixes alias)")
    return raw


class Layout:
    """Where the keys are, for one prefix, on a single server or a Redis Cluster (the policies
    and the policy audit under the fixed tag `{:}` there, so each policy script has one slot)."""

    def __init__(self, prefix: bytes, cluster: bool) -> None:
        self.prefix = prefix
        self.cluster = cluster
        shared = prefix + (b":{:}:" if cluster else b":")
        self.policy_base = shared
        self.events = prefix + b":events"
        self.audit = prefix + b":audit"
        self.policy_audit = shared + b"audit"
        self.policy_index = shared + b"policies"
        self.override_index = shared + b"overrides"

    def user_base(self, escaped_user: bytes) -> bytes:
        return self.prefix + b":{" + escaped_user + b"}"

    def policy_key(self, escaped_action: bytes) -> bytes:
        return self.policy_base + b"policy:" + escaped_action

    def policy_history_key(self, escaped_action: bytes) -> bytes:
        return self.policy_key(escaped_action) + b":history"

    def audit_mirror(self, user_audit: bytes) -> bytes:
        """KEYS' global audit stream: the user's own again on a cluster (one slot per call)."""
        return user_audit if self.cluster else self.audit

    def stats_key(self, escaped_action: bytes) -> bytes:
        return self.prefix + b":stats:" + escaped_action
