"""The IETF RateLimit header fields from a decision, byte for byte as the C++
`rateLimitHeaders()` (core/http/RateLimitHeaders) and tollgated write them."""
from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Dict, Optional, Union

if TYPE_CHECKING:
    from .decision import Decision

_UNITS = (("w", 7 * 86_400_000), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))


def duration_text(ms: int) -> str:
    """60000 -> "1m", 5400000 -> "1h30m", 500 -> "500ms" (the C++ formatDuration)."""
    if ms <= 0:
        return "0s"
    if ms % 1000:
        return f"{ms}ms"
    out, rest = [], ms
    for suffix, unit in _UNITS:
        if rest >= unit:
            out.append(f"{rest // unit}{suffix}")
            rest %= unit
    return "".join(out)


def _ceil_seconds(ms: int) -> int:
    return 0 if ms <= 0 else (ms + 999) // 1000


def policy_name(action: Union[str, bytes], window_ms: int) -> str:
    """`"<action>-<window>"` as an sf-string: bytes outside printable ASCII and `%`
    percent-escaped, `"` and `\\` backslash-escaped."""
    raw = action.encode("utf-8") if isinstance(action, str) else action
    out = ['"']
    for byte in raw:
        if byte < 0x20 or byte >= 0x7F or byte == 0x25:
            out.append(f"%{byte:02X}")
        else:
            if byte in (0x22, 0x5C):
                out.append("\\")
            out.append(chr(byte))
    out.append(f"-{duration_text(window_ms)}\"")
    return "".join(out)


def ratelimit_headers(decision: "Decision", partition_key: Optional[bytes] = None) -> Dict[str, str]:
    """RateLimit-Policy (every window), RateLimit (the binding one: the first whose limit is the
    reply's) and Retry-After (not allowed, with an end). `partition_key` becomes `;pk=:<b64>:`."""
    pk = f";pk=:{base64.b64encode(partition_key).decode()}:" if partition_key else ""
    windows = list(decision.windows)
    headers: Dict[str, str] = {}
    if windows:
        headers["RateLimit-Policy"] = ", ".join(
            f"{policy_name(decision.action, w.window_ms)};q={w.limit};w={max(1, _ceil_seconds(w.window_ms))}{pk}"
            for w in windows)
        binding = next((w for w in windows if w.limit == decision.limit), windows[0])
        remaining = 0 if decision.tier == "banned" else max(0, decision.remaining)
        reset_ms = decision.reset_ms
        if not decision.allowed and decision.retry_after_ms > decision.reset_ms:
            reset_ms = decision.retry_after_ms
        headers["RateLimit"] = (f"{policy_name(decision.action, binding.window_ms)};r={remaining};"
                                f"t={_ceil_seconds(reset_ms)}{pk}")
    if not decision.allowed and decision.retry_after_ms >= 0:
        headers["Retry-After"] = str(_ceil_seconds(decision.retry_after_ms))
    return headers
