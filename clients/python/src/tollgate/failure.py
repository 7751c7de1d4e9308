"""What a hit answers when Redis cannot (lua/README.md `on_error`; the C++ FailurePolicy and
InsuranceLimiter): report the error, allow, deny, or an in-process limiter decides."""
from __future__ import annotations

import math
import threading
import time
from typing import Dict, Optional, Tuple

from .decision import FAILURE_POLICY, Decision
from .errors import InvalidArgument, Unavailable
from .policy import Policy

MODES = ("report", "allow", "deny", "insurance")


def check_mode(mode: Optional[str]) -> Optional[str]:
    if mode is None:
        return None
    if mode not in MODES:
        raise InvalidArgument(f"on_error must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def policy_mode(policy: Policy) -> str:
    return policy.on_error or "report"


class InsuranceLimiter:
    """The in-process stand-in while Redis is away: a fixed window per user, action and window
    of the policy, started by the first hit, with the limits scaled by `factor` (1/N for N
    application instances, each counting only its own hits). All windows all-or-nothing, as
    hit.lua; it never bans, never writes to Redis. Thread-safe; at most `max_windows` windows
    (ended ones are swept first; if that is not enough every window starts over)."""

    def __init__(self, factor: float = 1.0, max_windows: int = 100_000) -> None:
        if factor <= 0:
            raise InvalidArgument("factor must be above 0")
        self.factor = factor
        self.max_windows = max_windows
        self._windows: Dict[Tuple[str, bytes, int], Tuple[int, int]] = {}  # -> (start_ms, count)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._windows)

    @staticmethod
    def _now_ms() -> int:
        return time.monotonic_ns() // 1_000_000  # a wall-clock jump must not reopen a window

    def _make_room(self, now: int) -> None:
        if len(self._windows) < self.max_windows:
            return
        self._windows = {k: v for k, v in self._windows.items() if now - v[0] < k[2]}
        if len(self._windows) >= self.max_windows:
            self._windows.clear()

    def hit(self, policy: Policy, user: bytes, cost: int, count: bool = True) -> Decision:
        with self._lock:
            now = self._now_ms()
            self._make_room(now)
            evaluated = []
            all_fit = True
            for w in policy.windows:
                key = (policy.action, user, w.window_ms)
                start, used = self._windows.get(key, (now, 0))
                if now - start >= w.window_ms:
                    start, used = now, 0
                limit = max(1, math.floor(w.limit * self.factor))
                fits = used + cost <= limit
                all_fit = all_fit and fits
                evaluated.append([key, start, used, limit, fits, w.window_ms])
            best = None
            for e in evaluated:
                key, start, used, limit, fits, window_ms = e
                if all_fit and count:
                    used = e[2] = used + cost
                    self._windows[key] = (start, used)
                reset = start + window_ms - now if used > 0 else 0
                if best is None:
                    better = True
                elif all_fit:
                    better = limit - used < best[1] - best[0]
                else:
                    better = fits < best[3] or (fits == best[3] and reset > best[2])
                if better:
                    best = (used, limit, reset, fits)
        assert best is not None
        used, limit, reset, _ = best
        retry = 0 if all_fit else (-1 if cost > limit else max(1, reset))
        return Decision(all_fit, "ok" if all_fit else "deny", used, limit, max(0, limit - used),
                        reset, retry, action=policy.action, source=FAILURE_POLICY)


_shared = InsuranceLimiter()


def answer_without_redis(mode: str, insurance: Optional[InsuranceLimiter], policy: Policy,
                         user: bytes, cost: int, count: bool, error: Unavailable) -> Decision:
    """The failure policy's decision for a hit Redis could not answer; `error` itself when the
    mode is report. A shadow policy's hit stays allowed whatever the mode says."""
    if mode == "report":
        raise error
    if mode == "allow":
        decision = Decision(True, "ok", 0, 0, 0, 0, 0, action=policy.action, source=FAILURE_POLICY)
    elif mode == "deny":
        decision = Decision(False, "deny", 0, 0, 0, 0, 0, action=policy.action, source=FAILURE_POLICY)
    else:
        decision = (insurance or _shared).hit(policy, user, cost, count)
    allowed, shadow = decision.allowed, 0
    if policy.shadow and count:
        allowed, shadow = True, 1
    return Decision(allowed, decision.tier, decision.count, decision.limit, decision.remaining,
                    decision.reset_ms, decision.retry_after_ms, action=policy.action,
                    message=None if allowed else policy.message, source=FAILURE_POLICY,
                    shadow=shadow, error=str(error), windows=policy.windows)
