"""What a hit, peek, refund or penalty answers."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Dict, Optional, Sequence

from .errors import ServerError

REDIS = "redis"
FAILURE_POLICY = "failure_policy"
TIERS = ("ok", "warn", "deny", "banned")


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


@dataclass(eq=True)
class Decision:
    """hit.lua's answer (or the failure policy's). `retry_after` is None when the wait never
    ends (a permanent ban, a cost above a limit); `message` is the policy's, when not allowed.
    (Not frozen: a frozen dataclass costs a third of the client's own time per hit.)"""

    allowed: bool
    tier: str
    count: int
    limit: int
    remaining: int
    reset_ms: int
    retry_after_ms: int
    action: str = ""
    message: Optional[str] = None
    source: str = REDIS
    override: str = ""  # "", "limit", "unlimited": which override of the user decided
    shadow: int = 0  # 1: a shadow policy's hit (never denied), 2: enforcing would have banned
    count_now: Optional[int] = None  # a peek's: the window as it stands, before the hit
    reset_now_ms: Optional[int] = None
    error: Optional[str] = None  # source failure_policy: why Redis did not answer
    windows: Sequence[Any] = ()  # the policy's (or the override's), for the header fields

    @property
    def reset(self) -> timedelta:
        return timedelta(milliseconds=self.reset_ms)

    @property
    def retry_after(self) -> Optional[timedelta]:
        return None if self.retry_after_ms < 0 else timedelta(milliseconds=self.retry_after_ms)

    @property
    def reset_now(self) -> Optional[timedelta]:
        return None if self.reset_now_ms is None else timedelta(milliseconds=self.reset_now_ms)

    @property
    def would_deny(self) -> bool:
        return self.shadow > 0 and self.tier in ("deny", "banned")

    def headers(self, partition_key: Optional[bytes] = None) -> Dict[str, str]:
        """RateLimit-Policy, RateLimit and (when due) Retry-After, as the C++ library sends them."""
        from .headers import ratelimit_headers

        return ratelimit_headers(self, partition_key)


_TIER_NAMES = {**{t: t for t in TIERS}, **{t.encode(): t for t in TIERS}}


def decision_from_reply(reply: Sequence[Any], action: str, message: Optional[str],
                        windows: Sequence[Any]) -> Decision:
    if not isinstance(reply, (list, tuple)) or len(reply) < 7:
        raise ServerError(f"malformed reply from hit.lua: {reply!r:.200}")
    tier = _TIER_NAMES.get(reply[1]) if isinstance(reply[1], (str, bytes)) else None
    if tier is None:
        raise ServerError(f"malformed reply from hit.lua: tier {_text(reply[1])!r}")
    allowed = int(reply[0]) == 1
    n = len(reply)
    # Every field by position: keywords cost a dataclass' __init__ three times as much.
    return Decision(
        allowed, tier, int(reply[2]), int(reply[3]), int(reply[4]), int(reply[5]), int(reply[6]),
        action, None if allowed else message, REDIS,
        _text(reply[7]) if n >= 9 else "", int(reply[8]) if n >= 9 else 0,
        int(reply[9]) if n >= 11 else None, int(reply[10]) if n >= 11 else None,
        None, windows)


@dataclass(frozen=True)
class Adjustment:
    """refund.lua's answer: what a refund or penalty changed (lua/README.md, refund.lua)."""

    changed: bool
    ban_created: bool
    count: int
    limit: int
    remaining: int
    reset_ms: int
    ban_until_ms: int

    @property
    def reset(self) -> timedelta:
        return timedelta(milliseconds=self.reset_ms)


def adjustment_from_reply(reply: Sequence[Any]) -> Adjustment:
    if not isinstance(reply, (list, tuple)) or len(reply) < 7:
        raise ServerError(f"malformed reply from refund.lua: {reply!r:.200}")
    v = [int(x) for x in reply[:7]]
    return Adjustment(v[0] == 1, v[1] == 1, v[2], v[3], v[4], v[5], v[6])
