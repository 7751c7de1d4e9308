"""hit.lua's and refund.lua's KEYS and ARGV for one policy (lua/README.md), built the way the C++
PreparedHit builds them: everything that stays the same for the policy once, the user's keys per
call. A policy that can never ban, warn, count a denial or need local time goes in hit.lua's
short form (3 fixed keys, no ids): 11 fewer keys and arguments the server parses per hit."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from .errors import InvalidArgument
from .keys import ALGORITHM_CODES, Layout, escape
from .policy import MAX_LIMIT, Policy, Window

Command = Tuple[List[bytes], List[bytes]]


def bulk(value: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(value), value)


def check_cost(cost: Optional[int], policy: Policy) -> int:
    if cost is None:
        return policy.cost
    if isinstance(cost, bool) or not isinstance(cost, int) or not 1 <= cost <= MAX_LIMIT:
        raise InvalidArgument(f"cost must be an integer between 1 and {MAX_LIMIT}, got {cost!r}")
    return cost


class PreparedHit:
    """hit.lua's call for one policy (or a user's limit override's windows) on one layout."""

    __slots__ = ("policy", "layout", "for_override", "short", "_suffixes", "_hit_mode",
                 "_head", "_tail", "_global_audit", "_audited", "_sha", "_resp_tail", "_resp_heads",
                 "_packable", "_key_template", "_key_lengths", "_resp_modes", "_resp_cost", "_resp_rules",
                 "_joinable", "_joins")

    def __init__(self, policy: Policy, layout: Layout, windows: Optional[Sequence[Window]] = None,
                 sha: str = "") -> None:
        self.for_override = windows is not None
        if windows is not None:
            policy = policy.with_windows(windows)
        policy.validate()
        self.policy = policy
        self.layout = layout
        action = policy.action.encode("utf-8")
        code = ALGORITHM_CODES[policy.algorithm]
        escaped = escape(action)
        self.short = not (policy.count_denied or policy.warn or policy.has_ban or policy.calendar)
        self._audited = not self.short
        self._suffixes = [b"}:ban", b"}:" + escaped + b":ban", b"}:overrides"]
        if self._audited:
            self._suffixes.append(b"}:audit")
        self._suffixes += [b"}:%s:%s:%d" % (escaped, code, w.window_ms) for w in policy.windows]
        self._global_audit = None if layout.cluster else layout.audit
        self._hit_mode = b"shadow" if policy.shadow else b"hit"
        pairs: List[bytes] = []
        for w in policy.windows:
            pairs += [b"%d" % w.limit, b"%d" % w.window_ms]
        if self.for_override:
            pairs.append(b"override")
        self._head = [policy.algorithm.encode()]
        if self.short:
            self._tail = pairs
        else:
            self._tail = [action, layout.events, b"calendar" if policy.calendar else b"first_hit"] + pairs
        self._sha = sha.encode()
        self._resp_tail = b"".join(map(bulk, self._tail))
        self._packable = bool(sha) and not layout.cluster  # a cluster may redirect: no RESP
        # The keys in RESP as one template: `$<length>\r\n<prefix>:{<user>}<suffix>\r\n`, the
        # global audit stream (full form, KEYS[5]) constant in it.
        chunks, self._key_lengths = [], []
        head = layout.prefix + b":{"
        for index, suffix in enumerate(self._suffixes):
            if index == 4 and self._audited:
                chunks.append(bulk(layout.audit).replace(b"%", b"%%"))
            chunks.append(b"$%%d\r\n%s%%s%s\r\n" % (head, suffix.replace(b"%", b"%%")))
            self._key_lengths.append(len(head) + len(suffix))
        self._key_template = b"".join(chunks)
        if self._audited and len(self._suffixes) == 4:  # unreachable: full form has a window
            raise AssertionError("a policy without windows")
        count = 3 + len(self._suffixes) + (1 if self._audited else 0) + 3 + len(self._tail)
        if self._audited:
            count += 6  # count_denied, warn, ban_ms, ban_until, offsets, user
        keys = len(self._suffixes) + (1 if self._audited else 0)
        self._resp_heads = [b"*%d\r\n%s%s%s" % (count, bulk(name), bulk(self._sha), bulk(b"%d" % keys))
                            for name in (b"EVALSHA", b"EVALSHA_RO")]
        algorithm = bulk(self._head[0])
        self._resp_modes = [bulk(self._hit_mode) + algorithm, bulk(b"peek") + algorithm]
        self._resp_cost = bulk(b"%d" % policy.cost)
        p = policy
        self._resp_rules = b"".join(map(bulk, (b"1" if p.count_denied else b"0", b"%d" % p.warn,
                                               b"%d" % p.ban_ms, b"midnight" if p.ban_until_midnight else b"")))
        # The full form names the raw id and the zone's offsets too: joined only when neither
        # differs from what the pieces hold (an id that needs no escaping, offsets "0").
        self._joinable = self.short or not p.needs_local_time
        self._joins: Dict[int, Optional[List[bytes]]] = {}

    def packed(self, peek: bool, user: bytes, cost: int) -> Optional[bytes]:
        """The whole EVALSHA[_RO] in RESP, everything constant encoded once (redis-py's own
        packing of each argument was the largest part of a client's time per hit); None on a
        cluster. The common call is the id joined into pieces kept per id length."""
        if not self._packable:
            return None
        escaped = escape(user)
        if cost == self.policy.cost and self._joinable and (self.short or escaped is user):
            slot = len(escaped) * 2 + peek
            pieces = self._joins.get(slot)
            if pieces is None and slot not in self._joins:
                pieces = self._pieces(len(escaped), peek)
            if pieces is not None:
                return escaped.join(pieces)
        return self._encode(peek, user, escaped, cost)

    def _encode(self, peek: bool, user: bytes, escaped: bytes, cost: int,
                id_length: Optional[int] = None) -> bytes:
        """`id_length`: the length written for the id (a marker stands in for ids of it)."""
        n = len(escaped) if id_length is None else id_length
        values: List[object] = []
        for length in self._key_lengths:
            values += (length + n, escaped)
        parts = [self._resp_heads[peek], self._key_template % tuple(values), self._resp_modes[peek],
                 self._resp_cost if cost == self.policy.cost else bulk(b"%d" % cost)]
        if self._audited:
            raw_length = len(user) if id_length is None else id_length
            parts += (self._resp_rules, bulk(self.policy.offsets().encode()),
                      b"$%d\r\n%s\r\n" % (raw_length, user))
        parts.append(self._resp_tail)
        return b"".join(parts)

    def _pieces(self, length: int, peek: bool) -> Optional[List[bytes]]:
        """The command at the policy's cost for ids of `length` bytes, cut where the id goes
        (None when the marker is found elsewhere too: an action holding it)."""
        marker = b"\x00tollgate-id\x00"
        pieces: Optional[List[bytes]] = \
            self._encode(peek, marker, marker, self.policy.cost, length).split(marker)
        if len(pieces) != len(self._key_lengths) + self._audited + 1:
            pieces = None
        if len(self._joins) >= 256:
            self._joins.clear()
        self._joins[length * 2 + peek] = pieces
        return pieces

    def command(self, peek: bool, user: bytes, cost: int) -> Command:
        base = self.layout.prefix + b":{" + escape(user)
        keys = [base + suffix for suffix in self._suffixes]
        mode = b"peek" if peek else self._hit_mode
        if self.short:
            return keys, [mode, self._head[0], b"%d" % cost] + self._tail
        audit = keys[3]
        keys.insert(4, audit if self._global_audit is None else self._global_audit)
        p = self.policy
        args = [mode, self._head[0], b"%d" % cost, b"1" if p.count_denied else b"0", b"%d" % p.warn,
                b"%d" % p.ban_ms, b"midnight" if p.ban_until_midnight else b"", p.offsets().encode(),
                user]
        return keys, args + self._tail


def refund_command(policy: Policy, layout: Layout, mode: bytes, user: bytes, cost: int, actor: str,
                   reason: str, windows: Optional[Sequence[Window]]) -> Command:
    """refund.lua: hit.lua's full form, then actor and reason, then the windows."""
    sent = policy.with_windows(windows) if windows is not None else policy
    action = policy.action.encode("utf-8")
    escaped = escape(action)
    base = layout.prefix + b":{" + escape(user) + b"}"
    audit = base + b":audit"
    code = ALGORITHM_CODES[policy.algorithm]
    keys = [base + b":ban", base + b":" + escaped + b":ban", base + b":overrides", audit,
            layout.audit_mirror(audit)]
    args = [mode, policy.algorithm.encode(), b"%d" % cost, b"1" if policy.count_denied else b"0",
            b"%d" % policy.warn, b"%d" % policy.ban_ms, b"midnight" if policy.ban_until_midnight else b"",
            policy.offsets().encode(), user, action, layout.events,
            b"calendar" if sent.calendar else b"first_hit", actor.encode(), reason.encode()]
    for w in sent.windows:
        keys.append(base + b":%s:%s:%d" % (escaped, code, w.window_ms))
        args += [b"%d" % w.limit, b"%d" % w.window_ms]
    if windows is not None:
        args.append(b"override")
    return keys, args
