"""What the synchronous and the asyncio Limiter share: every operation written once, as a
generator that yields the Redis requests it needs (Eval, Call, Scan) and gets their replies
back, and the caches (policies, prepared calls, override redirects). Each Limiter only drives
the generators over its own transport."""
from __future__ import annotations

import threading
import time
from typing import Any, Dict, Generator, NamedTuple, Optional, Sequence, Tuple, Union

from . import scripts
from .calls import PreparedHit, check_cost, refund_command
from .decision import FAILURE_POLICY, Adjustment, Decision, adjustment_from_reply, decision_from_reply
from .errors import (ContractMismatch, InvalidArgument, NoPolicy, Redirect, ServerError, TollgateError,
                     Unavailable)
from .failure import InsuranceLimiter, answer_without_redis, check_mode, policy_mode
from .keys import Id, Layout, as_bytes, check_id, check_prefix, escape
from .policy import CONTRACT, Policy, parse_windows
from .stats import HitStats, stats_args


class Eval(NamedTuple):
    script: scripts.Script
    keys: Sequence[bytes]
    args: Sequence[Any]
    readonly: bool = False


class Hit(NamedTuple):
    """hit.lua's EVALSHA already in RESP (not on a cluster, which may redirect it); its KEYS and
    ARGV are built only when it has to go again as EVAL."""
    script: scripts.Script
    packed: bytes
    call: PreparedHit
    peek: bool
    user: bytes
    cost: int

    def unpacked(self) -> Eval:
        return Eval(self.script, *self.call.command(self.peek, self.user, self.cost), self.peek)


class Call(NamedTuple):
    args: Sequence[Any]
    key: Optional[bytes] = None  # routes the call on a cluster; None: any node


class Scan(NamedTuple):
    pattern: bytes
    key: bytes  # the node that holds this key's slot is scanned (a user's keys share one)


Op = Generator[Any, Any, Any]
MAX_OVERRIDE_TARGETS = 4096


def flat_pairs(reply: Any) -> Dict[bytes, bytes]:
    if isinstance(reply, dict):
        return {as_bytes(k): as_bytes(v) for k, v in reply.items()}
    items = [as_bytes(x) for x in reply or []]
    return dict(zip(items[::2], items[1::2]))


def parse_event(payload: Union[str, bytes]) -> Optional[Tuple[bytes, bytes, bytes]]:
    """`<event>\\n<byte length of user>\\n<user><action>` -> (event, user, action)."""
    raw = as_bytes(payload)
    parts = raw.split(b"\n", 2)
    if len(parts) != 3 or not parts[1].isdigit() or int(parts[1]) > len(parts[2]):
        return None
    length = int(parts[1])
    return parts[0], parts[2][:length], parts[2][length:]


class Core:
    def __init__(self, prefix: str, cluster: bool, on_error: Optional[str],
                 insurance: Optional[InsuranceLimiter], timeout: Optional[float],
                 policy_max_age: float) -> None:
        self.layout = Layout(check_prefix(prefix), cluster)
        self.on_error = check_mode(on_error)
        self.insurance = insurance
        self.timeout = timeout
        self.policy_max_age = policy_max_age
        self.scripts = scripts.packaged()
        self.hit_script = self.scripts["hit"]
        self._policies: Dict[str, Tuple[float, Policy, PreparedHit]] = {}  # (until, ...)
        # Policies dropped from the cache, still the best answer while Redis cannot give one.
        self._last_known: Dict[str, Tuple[Policy, PreparedHit]] = {}
        self._inline: Dict[Policy, PreparedHit] = {}
        self._targets: Dict[Tuple[str, bytes], PreparedHit] = {}
        self._generation = 0
        self._lock = threading.Lock()
        self.stats: Optional[HitStats] = None  # set by a Limiter that records statistics

    # -- policies -------------------------------------------------------------------------
    def forget_policies(self, escaped_action: Optional[bytes] = None) -> None:
        """Drop cached policies (all, or the one whose escaped name is given, as an event
        names it); the next hit reads them again."""
        with self._lock:
            self._generation += 1
            for action in list(self._policies):
                if escaped_action is None or escape(action.encode()) == escaped_action:
                    del self._policies[action]

    def on_event(self, payload: Union[str, bytes]) -> None:
        event = parse_event(payload)
        if event and event[0] == b"policy":
            self.forget_policies(event[2])

    def load_policy(self, action: str) -> Op:
        key = self.layout.policy_key(escape(check_id(action, "action")))
        generation = self._generation
        fields = flat_pairs((yield Call((b"HGETALL", key), key)))
        if not fields:
            self._last_known.pop(action, None)
            raise NoPolicy(action, key.decode("utf-8", "replace"))
        policy = Policy.from_fields(action, fields)
        prepared = PreparedHit(policy, self.layout, sha=self.hit_script.sha)
        with self._lock:
            self._last_known[action] = (policy, prepared)
            if generation == self._generation:  # no change was announced while we read
                self._policies[action] = (time.monotonic() + self.policy_max_age, policy, prepared)
        return policy, prepared

    def cached(self, action: str) -> Optional[Tuple[Policy, PreparedHit]]:
        entry = self._policies.get(action)
        if entry is None or time.monotonic() >= entry[0]:
            return None
        return entry[1], entry[2]

    def policy_for(self, action: str, inline: Optional[Policy]) -> Op:
        if inline is not None:
            if inline.action != action:
                raise InvalidArgument(f"the policy given is action {inline.action!r}'s, not {action!r}'s")
            prepared = self._inline.get(inline)
            if prepared is None:
                prepared = PreparedHit(inline, self.layout, sha=self.hit_script.sha)
                if len(self._inline) < 256:
                    self._inline[inline] = prepared
            return inline, prepared
        entry = self.cached(action)
        if entry is None:
            try:
                entry = yield from self.load_policy(action)
            except Unavailable:
                entry = self._last_known.get(action)
                if entry is None:
                    raise
        return entry

    # -- hits ---------------------------------------------------------------------------------
    def decide(self, action: str, user: Id, cost: Optional[int], peek: bool,
               on_error: Optional[str], inline: Optional[Policy]) -> Op:
        raw = check_id(user, "user id")
        if on_error is not None:
            check_mode(on_error)
        # The common hit, its policy cached and fresh, reads it here without a generator of its own.
        entry = self._policies.get(action) if inline is None else None
        if entry is not None and time.monotonic() < entry[0]:
            policy, prepared = entry[1], entry[2]
        else:
            try:
                policy, prepared = yield from self.policy_for(action, inline)
            except Unavailable as error:  # no policy to decide by: only allow and deny can answer
                mode = on_error or self.on_error
                if mode not in ("allow", "deny"):
                    raise
                return Decision(mode == "allow", "ok" if mode == "allow" else "deny", 0, 0, 0, 0, 0,
                                action=action, source=FAILURE_POLICY, error=str(error))
        units = policy.cost if cost is None else check_cost(cost, policy)
        sent = prepared
        if self._targets:
            sent = self._targets.get((policy.action, raw), prepared)
            if sent.policy.revision != policy.revision:
                sent = prepared
        redirects = 0
        while True:
            packed = sent.packed(peek, raw, units)
            try:
                reply = yield (Eval(self.hit_script, *sent.command(peek, raw, units), peek) if packed is None
                               else Hit(self.hit_script, packed, sent, peek, raw, units))
            except Redirect as redirect:
                sent = self._redirect(prepared, (policy.action, raw), redirect, redirects)
                redirects += 1
                continue
            except Unavailable as error:
                return answer_without_redis(on_error or self.on_error or policy_mode(policy), self.insurance,
                                            policy, raw, units, not peek, error)
            decision = decision_from_reply(reply, policy.action, policy.message, policy.windows)
            if self.stats is not None and not peek:
                self.stats.record(decision, units, policy.has_ban)
            return decision

    def _redirect(self, prepared: PreparedHit, target_key: Tuple[str, bytes], redirect: Redirect,
                  redirects: int) -> PreparedHit:
        """The user's override has other windows: send the hit there, and the user's next hits
        too (the script checks them again, so a stale entry costs one redirect)."""
        if redirects >= 2:
            raise ServerError(f"the override of user {target_key[1][:200]!r} changed during the hit "
                              f"three times ({redirect})")
        with self._lock:
            if redirect.target == "policy":
                self._targets.pop(target_key, None)
                return prepared
            sent = PreparedHit(prepared.policy, self.layout, parse_windows(redirect.target),
                               self.hit_script.sha)
            if len(self._targets) >= MAX_OVERRIDE_TARGETS:
                self._targets.pop(next(iter(self._targets)))
            self._targets[target_key] = sent
            return sent

    def adjust(self, mode: bytes, action: str, user: Id, cost: Optional[int], actor: str,
               reason: str, inline: Optional[Policy]) -> Op:
        """refund.lua: give units back (refund) or count extra ones (penalize)."""
        raw = check_id(user, "user id")
        if mode == b"penalize":
            require_actor_and_reason(actor, reason)
        policy, _ = yield from self.policy_for(action, inline)
        units = check_cost(cost, policy)
        windows = None
        for redirects in range(3):
            keys, args = refund_command(policy, self.layout, mode, raw, units, actor, reason, windows)
            try:
                reply = yield Eval(self.scripts["refund"], keys, args)
            except Redirect as redirect:
                if redirects == 2:
                    raise
                windows = None if redirect.target == "policy" else parse_windows(redirect.target)
                continue
            return adjustment_from_reply(reply)
        raise AssertionError("unreachable")

    def flush_stats(self) -> Op:
        """stats.lua's `counts` form per action with outcomes; errors are dropped (an ACL user
        that may hit but not write statistics still hits)."""
        for action, counts in self.stats.take() if self.stats else []:
            try:
                yield Eval(self.scripts["stats"], [self.layout.stats_key(action)], stats_args(counts))
            except TollgateError:
                pass

    # -- start-up -----------------------------------------------------------------------------
    def check_contract(self) -> Op:
        """Every script this client calls answers the contract it was written for."""
        for name in scripts.USED:
            answer = yield Eval(self.scripts[name], [], [b"contract"])
            if answer != CONTRACT:
                raise ContractMismatch(scripts.contract_message(name, answer))


def require_actor_and_reason(actor: str, reason: str, reason_required: bool = True) -> None:
    if not isinstance(actor, str) or not actor.strip():
        raise InvalidArgument("an actor is required")
    if reason_required and (not isinstance(reason, str) or not reason.strip()):
        raise InvalidArgument("a reason is required")
    if len(reason) > 2000:
        raise InvalidArgument("reason is longer than 2000 characters")


__all__ = ["Core", "Eval", "Hit", "Call", "Scan", "Op", "flat_pairs", "parse_event", "Adjustment"]
