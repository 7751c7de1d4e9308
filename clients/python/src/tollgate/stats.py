"""The console's per-second statistics (stats.lua, lua/README.md): outcomes added up in the
process and written at most once a second per action, in the middle of a second, as the C++
HitStats does; a hit never waits for them and a lost write loses only those seconds' figures."""
from __future__ import annotations

import threading
import time
from typing import Callable, Dict, List, Optional, Tuple

from .decision import Decision
from .keys import escape

# hits, cost, warn, denied, banned, automatic bans, manual bans, would deny, would ban
Counts = List[int]


def until_mid_second(now_s: Optional[float] = None) -> float:
    now_ms = int((time.time() if now_s is None else now_s) * 1000)
    wait = (500 - now_ms % 1000 + 1000) % 1000
    return (wait or 1000) / 1000


class HitStats:
    def __init__(self, arm: Callable[[float], None]) -> None:
        self._arm = arm  # runs flush() after the given seconds
        self._pending: Dict[str, Counts] = {}
        self._armed = False
        self._lock = threading.Lock()

    def record(self, decision: Decision, cost: int, bans: bool) -> None:
        tier, shadow = decision.tier, decision.shadow > 0
        denied = tier in ("deny", "banned")
        banned = bans and tier == "deny"
        with self._lock:
            c = self._pending.get(decision.action)
            if c is None:
                c = self._pending[decision.action] = [0] * 9
            c[0] += 1
            c[1] += cost
            c[2] += tier == "warn"
            c[7 if shadow else 3] += denied
            c[4] += not shadow and tier == "banned"
            c[8 if shadow else 5] += banned
            if self._armed:
                return
            self._armed = True
        self._arm(until_mid_second())

    def take(self) -> List[Tuple[bytes, Counts]]:
        """What to write now, as (escaped action, counts); disarms."""
        with self._lock:
            pending, self._pending, self._armed = self._pending, {}, False
        return [(escape(action.encode("utf-8")), counts) for action, counts in pending.items()]


def stats_args(counts: Counts) -> list:
    return [b"counts", *counts]
