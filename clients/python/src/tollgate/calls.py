"""hit.lua's and refund.lua's KEYS and ARGV for one policy (lua/README.md), built the way the C++
PreparedHit builds them: everything that stays the same for the policy once, the user's keys per
call. A policy that can never ban, warn, count a denial or need local time goes in hit.lua's
short form (3 fixed keys, no ids): 11 fewer keys and arguments the server parses per hit."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from .errors import InvalidArgument
from .keys import ALGORITHM_CODES, Layout, escape
from .policy import MAX_LIMIT, Policy, Window

Command = Tuple[List[bytes], List[bytes]]


def check_cost(cost: Optional[int], policy: Policy) -> int:
    if cost is None:
        return policy.cost
    if isinstance(cost, bool) or not isinstance(cost, int) or not 1 <= cost <= MAX_LIMIT:
        raise InvalidArgument(f"cost must be an integer between 1 and {MAX_LIMIT}, got {cost!r}")
    return cost


class PreparedHit:
    """hit.lua's call for one policy (or a user's limit override's windows) on one layout."""

    __slots__ = ("policy", "layout", "for_override", "short", "_suffixes", "_hit_mode",
                 "_head", "_tail", "_global_audit", "_audited")

    def __init__(self, policy: Policy, layout: Layout, windows: Optional[Sequence[Window]] = None) -> None:
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
