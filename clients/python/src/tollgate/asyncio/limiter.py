"""tollgate.asyncio.Limiter: the same client for asyncio, on redis.asyncio."""
from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Mapping, Optional, Union

from .. import moderation as mod
from ..core import Core
from ..decision import Adjustment, Decision
from ..errors import Unavailable
from ..failure import InsuranceLimiter
from ..keys import Id
from ..limiter import Policies, inline_policies
from ..policy import Policy
from ..stats import HitStats
from ..watch import RETRY_S, handle
from .transport import AsyncTransport, is_cluster


class Limiter:
    """tollgate.Limiter's API with `await`: `redis` is a `redis.asyncio.Redis` (or Sentinel's
    `master_for`, or `redis.asyncio.RedisCluster`). The contract is checked at the first call
    (or `await limiter.check_contract()` at start-up); policies are watched by a task of the
    running loop, except on a cluster (redis-py has no asyncio cluster pub/sub), where
    `policy_max_age` bounds how long a change takes to be seen."""

    def __init__(self, redis: Any, prefix: str = "tg", *, policies: Policies = None,
                 on_error: Optional[str] = None, insurance: Optional[InsuranceLimiter] = None,
                 timeout: Optional[float] = 1.0, watch_policies: bool = True,
                 policy_max_age: float = 60.0, check_contract: bool = True,
                 record_stats: bool = True) -> None:
        self.redis = redis
        cluster = is_cluster(redis)
        self.core = Core(prefix, cluster, on_error, insurance, timeout, policy_max_age)
        if record_stats:
            self.core.stats = HitStats(self._arm_stats)
        self._stats_tasks: "set[asyncio.Task[None]]" = set()
        self._transport = AsyncTransport(redis)
        self._inline = inline_policies(policies)
        self._watch_wanted = watch_policies and not cluster
        self._watch: Optional["asyncio.Task[None]"] = None
        self._contract_checked = not check_contract

    async def hit(self, action: str, user: Id, cost: Optional[int] = None, *, on_error: Optional[str] = None,
                  timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Decision:
        return await self._decide(action, user, cost, False, on_error, timeout, policy)

    async def peek(self, action: str, user: Id, cost: Optional[int] = None, *, on_error: Optional[str] = None,
                   timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Decision:
        return await self._decide(action, user, cost, True, on_error, timeout, policy)

    async def refund(self, action: str, user: Id, cost: Optional[int] = None, *,
                     timeout: Optional[float] = None, policy: Optional[Policy] = None) -> Adjustment:
        return await self._run(self.core.adjust(b"refund", action, user, cost, "", "",
                                                self._policy(action, policy)), timeout)

    async def penalize(self, action: str, user: Id, cost: Optional[int] = None, *, actor: str,
                       reason: str, timeout: Optional[float] = None,
                       policy: Optional[Policy] = None) -> Adjustment:
        return await self._run(self.core.adjust(b"penalize", action, user, cost, actor, reason,
                                                self._policy(action, policy)), timeout)

    async def policy(self, action: str) -> Policy:
        inline = self._inline.get(action)
        if inline is not None:
            return inline
        return (await self._run(self.core.policy_for(action, None), None))[0]

    def forget_policies(self) -> None:
        self.core.forget_policies()

    async def ban(self, user: Id, action: Optional[str] = None, *, reason: str, actor: str,
                  duration: mod.Duration = None, until: Optional[datetime] = None) -> mod.Ban:
        return await self._run(mod.ban(self.core, user, action, duration, until, reason, actor), None)

    async def unban(self, user: Id, action: Optional[str] = None, *, reason: str, actor: str) -> int:
        return await self._run(mod.unban(self.core, user, action, reason, actor), None)

    async def reset(self, user: Id, action: Optional[str] = None, *, reason: str, actor: str) -> int:
        return await self._run(mod.reset(self.core, user, action, reason, actor), None)

    async def set_override(self, user: Id, action: str, *, windows: Any = None, unlimited: bool = False,
                           duration: mod.Duration = None, until: Optional[datetime] = None,
                           reason: str, actor: str) -> mod.OverrideSet:
        return await self._run(mod.set_override(self.core, user, action, windows, unlimited, duration,
                                                until, reason, actor), None)

    async def delete_override(self, user: Id, action: str, *, reason: str, actor: str) -> bool:
        return await self._run(mod.delete_override(self.core, user, action, reason, actor), None)

    async def put_policy(self, policy: Union[Policy, str], fields: Optional[Mapping[str, str]] = None, *,
                         actor: str, reason: str = "", revision: Optional[int] = None) -> int:
        action = policy.action if isinstance(policy, Policy) else policy
        values = mod.policy_fields(policy if isinstance(policy, Policy) else fields or {})
        return await self._run(mod.put_policy(self.core, action, values, actor, reason, revision), None)

    async def delete_policy(self, action: str, *, actor: str, reason: str = "",
                            revision: Optional[int] = None) -> bool:
        return await self._run(mod.delete_policy(self.core, action, actor, reason, revision), None)

    async def check_contract(self) -> None:
        await self._transport.run(self.core.check_contract(), None)
        self._contract_checked = True

    def _arm_stats(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(seconds, self._start_flush)

    def _start_flush(self) -> None:
        task = asyncio.get_running_loop().create_task(self.flush_stats())
        self._stats_tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._stats_tasks.discard)

    async def flush_stats(self) -> None:
        try:
            await self._transport.run(self.core.flush_stats(), self.core.timeout)
        except Exception:  # noqa: BLE001 - statistics are best effort
            pass

    async def close(self) -> None:
        await self.flush_stats()
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None

    async def __aenter__(self) -> "Limiter":
        await self.check_contract()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _policy(self, action: str, given: Optional[Policy]) -> Optional[Policy]:
        if given is not None:
            return given
        inline = self._inline.get(action)
        if inline is None and self._watch is None and self._watch_wanted:
            self._watch = asyncio.get_running_loop().create_task(self._watch_events())
        return inline

    async def _watch_events(self) -> None:
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(self.core.layout.events)
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message:
                        handle(message, self.core, lambda: None)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis away: drop what may go stale, try again
                self.core.forget_policies()
                await asyncio.sleep(RETRY_S)
            finally:
                try:
                    await pubsub.reset()
                except Exception:  # noqa: BLE001
                    pass

    async def _decide(self, action: str, user: Id, cost: Optional[int], peek: bool,
                      on_error: Optional[str], timeout: Optional[float], policy: Optional[Policy]) -> Decision:
        op = self.core.decide(action, user, cost, peek, on_error, self._policy(action, policy))
        return await self._run(op, timeout if timeout is not None else self.core.timeout)

    async def _run(self, op: Any, timeout: Optional[float]) -> Any:
        if not self._contract_checked:
            try:
                await self.check_contract()
            except Unavailable:
                pass
        return await self._transport.run(op, timeout)
