"""Runs conformance cases through the public API of tollgate.Limiter against a private
redis-server (and a private cluster for `cluster: true` cases)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional


from .. import Limiter, TollgateError
from ..decision import Adjustment, Decision
from ..keys import as_bytes
from .cases import CaseError, Mismatch, compare, identifier, load

ACTOR = "conformance"


class StepFailed(Exception):
    pass


def decision_fields(d: Decision) -> Dict[str, Any]:
    return {"allowed": d.allowed, "tier": d.tier, "count": d.count, "limit": d.limit,
            "remaining": d.remaining, "reset_ms": d.reset_ms, "retry_after_ms": d.retry_after_ms,
            "message": d.message, "override": d.override, "shadow": d.shadow, "source": d.source,
            "count_now": d.count_now, "reset_now_ms": d.reset_now_ms}


def adjustment_fields(a: Adjustment) -> Dict[str, Any]:
    return {"changed": a.changed, "ban_created": a.ban_created, "count": a.count, "limit": a.limit,
            "remaining": a.remaining, "reset_ms": a.reset_ms, "ban_until_ms": a.ban_until_ms}


class CaseRun:
    def __init__(self, case: Dict[str, Any], client: Any, server: Any) -> None:
        self.case = case
        self.client = client  # redis.Redis or RedisCluster on the private server(s)
        self.server = server  # freeze() / thaw()
        self.prefix = case.get("prefix", "tg")
        self.limiter = Limiter(client, prefix=self.prefix, watch_policies=False)

    def run(self) -> None:
        for action, fields in (self.case.get("policies") or {}).items():
            self.limiter.put_policy(action, fields, actor=ACTOR, reason="")
            self._prime(action)
        for number, step in enumerate(self.case["steps"], 1):
            try:
                for _ in range(int(step.get("repeat", 1))):
                    self.step(step)
            except Mismatch as mismatch:
                raise StepFailed(f"step {number}: {mismatch}") from None

    def _prime(self, action: str) -> None:
        try:  # read now, so a later freeze finds the policy cached, as a running app would
            self.limiter.policy(action)
        except TollgateError:
            pass  # a malformed policy: its steps expect the error

    def step(self, step: Dict[str, Any]) -> None:
        expect = step.get("expect") or {}
        started = time.monotonic()
        try:
            got = self.perform(step)
        except TollgateError as error:
            if "error" not in expect:
                raise Mismatch("error", None, f"{error.kind}: {error}") from None
            if error.kind != expect["error"]:
                raise Mismatch("error", expect["error"], f"{error.kind}: {error}") from None
            return
        if "error" in expect:
            raise Mismatch("error", expect["error"], got)
        got = dict(got or {}, elapsed_ms=int((time.monotonic() - started) * 1000))
        compare(expect, got)
        if "keys_without_ttl" in expect:
            count = self.keys_without_ttl()
            if count != expect["keys_without_ttl"]:
                raise Mismatch("keys_without_ttl", expect["keys_without_ttl"], count)

    def perform(self, step: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        op, lim = step["op"], self.limiter
        action, user = identifier(step.get("action")), identifier(step.get("user"))
        if isinstance(action, bytes):
            action = action.decode("utf-8", "surrogateescape")
        reason, actor = step.get("reason", ACTOR), step.get("actor", ACTOR)
        client = step.get("client") or {}
        options: Dict[str, Any] = {}
        if "timeout_ms" in client:
            options["timeout"] = client["timeout_ms"] / 1000
        if op in ("hit", "peek"):
            call: Callable[..., Decision] = lim.hit if op == "hit" else lim.peek
            return decision_fields(call(action, user, step.get("cost"), on_error=client.get("on_error"),
                                        **options))
        if op == "refund":
            return adjustment_fields(lim.refund(action, user, step.get("cost"), **options))
        if op == "penalize":
            return adjustment_fields(lim.penalize(action, user, step.get("cost"), actor=actor, reason=reason,
                                                  **options))
        if op == "ban":
            ban = lim.ban(user, action, reason=reason, actor=actor, duration=step.get("ms", 0))
            return {"until_ms": ban.until_ms, "created_ms": ban.created_ms}
        if op in ("unban", "reset"):
            method = lim.unban if op == "unban" else lim.reset
            return {"count": method(user, action, reason=reason, actor=actor)}
        if op == "override":
            result = lim.set_override(user, action, windows=step.get("windows"),
                                      unlimited=bool(step.get("unlimited", False)), duration=step.get("ms", 0),
                                      reason=reason, actor=actor)
            return {"until_ms": result.until_ms, "set_ms": result.set_ms, "key_end": result.key_end_ms}
        if op == "policy":
            if step.get("delete"):
                return {"deleted": lim.delete_policy(action, actor=ACTOR)}
            revision = lim.put_policy(action, step.get("fields") or {}, actor=ACTOR)
            lim.forget_policies()
            self._prime(action)
            return {"revision": revision}
        if op == "sleep":
            time.sleep(step["ms"] / 1000)
        elif op == "redis":
            self.raw(step["command"])
            lim.forget_policies()  # a raw write announces nothing: read policies afresh
        elif op == "freeze":
            self.server.freeze()
        elif op == "thaw":
            self.server.thaw()
        return None

    def raw(self, command: List[str]) -> Any:
        if hasattr(self.client, "get_nodes") and command and command[0].upper() in ("SCRIPT", "FLUSHALL"):
            return self.client.execute_command(*command, target_nodes=self.client.ALL_NODES)
        return self.client.execute_command(*command)

    def keys_without_ttl(self) -> int:
        """Keys that must expire (counters, bans with an end, override hashes without a permanent
        override) and have no TTL, found by SCAN + PTTL from here."""
        pattern = self.prefix + ":{*"
        count = 0
        for key in self.client.scan_iter(match=pattern, count=1000):
            raw = as_bytes(key)
            if raw.startswith(self.prefix.encode() + b":{:}") or self.client.pttl(raw) != -1:
                continue
            parts = raw.split(b"}:", 1)[-1].split(b":")
            if len(parts) == 3 and parts[1] in (b"fw", b"sl", b"sw", b"tb"):
                count += 1
            elif parts[-1] == b"ban":
                until = self.client.hget(raw, "until_ms")
                if until not in (None, b"0", "0"):
                    count += 1
            elif parts == [b"overrides"]:
                values = [as_bytes(v).split(b" ") for v in self.client.hvals(raw)]
                if all(len(v) > 1 and v[1] != b"0" for v in values):
                    count += 1
        return count


def run_case(path: Path, client: Any, server: Any) -> None:
    """Raises StepFailed / CaseError; returns when the case passes."""
    case = load(path)
    flush(client)
    try:
        CaseRun(case, client, server).run()
    finally:
        server.thaw()  # a case that failed while the server was frozen leaves it running


def flush(client: Any) -> None:
    if hasattr(client, "get_nodes"):
        client.flushall(target_nodes=client.PRIMARIES)
    else:
        client.flushall()


__all__ = ["run_case", "StepFailed", "CaseError"]
