"""tollgate.Limiter: the synchronous client on redis-py."""
from __future__ import annotations

import threading
from datetime import datetime
from typing import Any, Iterable, Mapping, Optional, Union

from . import moderation as mod
from .core import Core
from .decision import Adjustment, Decision
from .errors import Unavailable
from .failure import InsuranceLimiter
from .keys import Id
from .policy import Policy
from .stats import HitStats
from .transport import SyncTransport, is_cluster
from .watch import PolicyWatch

Policies = Union[Mapping[str, Policy], Iterable[Policy], None]


def inline_policies(policies: Policies) -> dict:
    if policies is None:
        return {}
    items = policies.values() if isinstance(policies, Mapping) else policies
    out = {}
    for policy in items:
        policy.validate()
        out[policy.action] = policy
    return out


class Limiter:
    """Rate limits on Redis through Tollgate's scripts.

    `redis`: a redis-py client (`redis.Redis`, Sentinel's `master_for(...)`, `RedisCluster`).
    Policies are read from Redis (`<prefix>:policy:<action>`) and cached, kept current from the
    events channel (`watch_policies`) and re-read after `policy_max_age` seconds anyway; or given
    inline (`policies=`, or `policy=` per call). `on_error` (allow, deny, report, insurance)
    overrides each policy's own failure policy; `timeout` is the deadline of a hit in seconds.
    The scripts' contract is checked here (or at the first call while Redis is away).
    `record_stats`: the outcomes feed the console's Dashboard (stats.lua, once a second per
    action, from a timer thread)."""

    def __init__(self, redis: Any, prefix: str = "tg", *, policies: Policies = None,
                 on_error: Optional[str] = None, insurance: Optional[InsuranceLimiter] = None,
                 timeout: Optional[float] = 1.0, watch_policies: bool = True,
                 policy_max_age: float = 60.0, check_contract: bool = True,
                 record_stats: bool = True) -> None:
        self.redis = redis
        self.core = Core(prefix, is_cluster(redis), on_error, insurance, timeout, policy_max_age)
        self._transport = SyncTransport(redis)
        if record_stats:
            self.core.stats = HitStats(self._arm_stats)
        self._inline = inline_policies(policies)
        self._watch: Optional[PolicyWatch] = None
        self._watch_wanted = watch_policies
        self._start_lock = threading.Lock()
        self._contract_checked = not check_contract
        if check_contract:
            try:
                self.check_contract()
            except Unavailable:
                pass  # checked before the first call that reaches Redis

    # -- decisions ----------------------------------------------------------------------------
    def hit(self, action: str, user: Id, cost: Optional[int] = None, *, on_error: Optional[str] = None,
            timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Decision:
        """Counts a hit of `cost` units (None: the policy's); a shadow policy's hit is counted
        and never denied."""
        return self._run(self.core.decide(action, user, cost, False, on_error, self._policy(action, policy)),
                         self.core.timeout if timeout is None else timeout)

    def peek(self, action: str, user: Id, cost: Optional[int] = None, *, on_error: Optional[str] = None,
             timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Decision:
        """What a hit of `cost` would get, counting nothing (EVALSHA_RO: a read-only user may)."""
        return self._run(self.core.decide(action, user, cost, True, on_error, self._policy(action, policy)),
                         self.core.timeout if timeout is None else timeout)

    def refund(self, action: str, user: Id, cost: Optional[int] = None, *,
               timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Adjustment:
        """Gives back `cost` units a failed request consumed (never below empty)."""
        return self._run(self.core.adjust(b"refund", action, user, cost, "", "",
                                          self._policy(action, policy)), timeout)

    def penalize(self, action: str, user: Id, cost: Optional[int] = None, *, actor: str, reason: str,
                 timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Adjustment:
        """Counts `cost` extra units; bans as the policy says when a hit would have been denied."""
        return self._run(self.core.adjust(b"penalize", action, user, cost, actor, reason,
                                          self._policy(action, policy)), timeout)

    def policy(self, action: str) -> Policy:
        """The policy hits of `action` are decided by (inline, cached or read now)."""
        inline = self._inline.get(action)
        if inline is not None:
            return inline
        return self._run(self.core.policy_for(action, None), None)[0]

    def forget_policies(self) -> None:
        """Read every policy from Redis again at its next use."""
        self.core.forget_policies()

    # -- moderation ---------------------------------------------------------------------------
    def ban(self, user: Id, action: Optional[str] = None, *, reason: str, actor: str,
            duration: mod.Duration = None, until: Optional[datetime] = None) -> mod.Ban:
        """Bans the user from `action` (None: every action) for `duration` (timedelta or ms),
        until `until`, or for good (neither); audited with `reason` and `actor`."""
        return self._run(mod.ban(self.core, user, action, duration, until, reason, actor), None)

    def unban(self, user: Id, action: Optional[str] = None, *, reason: str, actor: str) -> int:
        """Lifts the user's ban of `action` (None: every ban); the number of bans lifted."""
        return self._run(mod.unban(self.core, user, action, reason, actor), None)

    def reset(self, user: Id, action: Optional[str] = None, *, reason: str, actor: str) -> int:
        """Deletes the user's counters of `action` (None: all); bans stay. The number deleted."""
        return self._run(mod.reset(self.core, user, action, reason, actor), None)

    def set_override(self, user: Id, action: str, *, windows: Any = None, unlimited: bool = False,
                     duration: mod.Duration = None, until: Optional[datetime] = None, reason: str,
                     actor: str) -> mod.OverrideSet:
        """Other limits for one user (`windows`: "60000:100" or [(window_ms, limit)]), or none
        (`unlimited`); `action` "*" for every action."""
        return self._run(mod.set_override(self.core, user, action, windows, unlimited, duration,
                                          until, reason, actor), None)

    def delete_override(self, user: Id, action: str, *, reason: str, actor: str) -> bool:
        return self._run(mod.delete_override(self.core, user, action, reason, actor), None)

    def put_policy(self, policy: Union[Policy, str], fields: Optional[Mapping[str, str]] = None, *,
                   actor: str, reason: str = "", revision: Optional[int] = None) -> int:
        """Saves a policy (a Policy, or an action and its hash fields); the new revision."""
        action = policy.action if isinstance(policy, Policy) else policy
        values = mod.policy_fields(policy if isinstance(policy, Policy) else fields or {})
        return self._run(mod.put_policy(self.core, action, values, actor, reason, revision), None)

    def delete_policy(self, action: str, *, actor: str, reason: str = "",
                      revision: Optional[int] = None) -> bool:
        return self._run(mod.delete_policy(self.core, action, actor, reason, revision), None)

    # -- plumbing -----------------------------------------------------------------------------
    def check_contract(self) -> None:
        """Refuses (ContractMismatch) when a script answers another contract than this client's."""
        self._transport.run(self.core.check_contract(), None)
        self._contract_checked = True

    def _arm_stats(self, seconds: float) -> None:
        timer = threading.Timer(seconds, self.flush_stats)
        timer.daemon = True
        timer.start()

    def flush_stats(self) -> None:
        """Writes the outcomes counted since the last write now (a timer does it every second)."""
        try:
            self._transport.run(self.core.flush_stats(), self.core.timeout)
        except Exception:  # noqa: BLE001 - statistics are best effort
            pass

    def close(self) -> None:
        self.flush_stats()
        if self._watch is not None:
            self._watch.stop()
            self._watch = None

    def __enter__(self) -> "Limiter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _policy(self, action: str, given: Optional[Policy]) -> Optional[Policy]:
        if given is not None:
            return given
        inline = self._inline.get(action)
        if inline is None and self._watch is None and self._watch_wanted:
            self._start_watch()
        return inline

    def _start_watch(self) -> None:
        with self._start_lock:
            if self._watch is None:
                self._watch = PolicyWatch(self.redis, self.core)
                self._watch.start()

    def _run(self, op: Any, timeout: Optional[float]) -> Any:
        if not self._contract_checked:
            try:
                self.check_contract()
            except Unavailable:
                pass  # the call itself meets the same failure and answers by its policy
        return self._transport.run(op, timeout)
