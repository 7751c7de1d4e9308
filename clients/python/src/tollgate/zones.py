"""hit.lua's ARGV[8]: the UTC offsets of a policy's IANA zone around now (lua/README.md,
"Time zones"), computed as the C++ client does: the offset 2 days back, then every change up to
40 days ahead; cached for the day."""
from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Dict, Optional, Tuple

try:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
except ImportError:  # pragma: no cover - Python < 3.9
    ZoneInfo = None  # type: ignore[assignment,misc]
    ZoneInfoNotFoundError = KeyError  # type: ignore[assignment,misc]

DAY_MS = 86_400_000
_STEP_S = 6 * 3600  # no zone changes its offset twice within 6 hours
_lock = threading.Lock()
_cache: Dict[str, Tuple[int, str]] = {}


def zone(name: str) -> Optional[object]:
    """The zone, or None when the name is unknown here."""
    if not name or ZoneInfo is None:
        return None
    if name == "UTC":
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def _offset_ms(tz: object, at_s: float) -> int:
    moment = datetime.fromtimestamp(at_s, timezone.utc).astimezone(tz)  # type: ignore[arg-type]
    delta = moment.utcoffset() or timedelta(0)
    return int(delta.total_seconds() * 1000)


def offsets_text(name: str, from_ms: int, to_ms: int) -> str:
    tz = zone(name)
    if tz is None:
        raise ValueError(f"unknown time zone {name!r} (use an IANA name such as Europe/Berlin)")
    t = from_ms // 1000
    current = _offset_ms(tz, t)
    parts = [str(current)]
    end = to_ms // 1000
    while t < end:
        nxt = min(t + _STEP_S, end)
        if _offset_ms(tz, nxt) != current:
            lo, hi = t, nxt  # the change is in (lo, hi]: find its first second
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if _offset_ms(tz, mid) == current:
                    lo = mid
                else:
                    hi = mid
            current = _offset_ms(tz, hi)
            parts.append(f"{hi * 1000}:{current}")
            t = hi
        else:
            t = nxt
    return ",".join(parts)


def offsets_around_now(name: str) -> str:
    now = int(time.time() * 1000)
    today = now // DAY_MS
    with _lock:
        cached = _cache.get(name)
        if cached and cached[0] == today:
            return cached[1]
    text = offsets_text(name, now - 2 * DAY_MS, now + 40 * DAY_MS)
    with _lock:
        _cache[name] = (today, text)
    return text
