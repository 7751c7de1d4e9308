"""A policy: the hash `<p>:policy:<action>` read as the C++ `Policy::fromFields` reads it and
checked as `Policy::validate` checks it (lua/README.md, "The policy hash")."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import zones
from .errors import BadPolicy, ContractMismatch
from .keys import MAX_ID_BYTES

CONTRACT = 3
MAX_LIMIT = 1_000_000_000
MAX_SLIDING_LOG_LIMIT = 100_000
MAX_WINDOWS = 8
YEAR_MS = 365 * 86_400_000
CALENDAR_WINDOWS = (60_000, 3_600_000, 86_400_000, 7 * 86_400_000)
ALGORITHMS = ("fixed_window", "sliding_log", "sliding_window", "token_bucket")
FAILURE_MODES = ("", "allow", "deny", "insurance")


class Window(NamedTuple):
    window_ms: int
    limit: int


def parse_windows(text: str) -> Tuple[Window, ...]:
    """`<window_ms>:<limit>,...` as stored in the hash and in TG_OVERRIDE replies."""
    windows = []
    for pair in text.split(","):
        parts = pair.split(":")
        if len(parts) != 2 or not all(_is_integer(p) for p in parts):
            raise BadPolicy(f"malformed windows field {text[:200]!r} (want <window_ms>:<limit>,...)")
        windows.append(Window(int(parts[0]), int(parts[1])))
    return tuple(windows)


def _is_integer(text: str) -> bool:
    body = text[1:] if text[:1] in ("-", "+") else text
    return body.isdigit() and body.isascii()


@dataclass(frozen=True)
class Policy:
    """How one action is limited. Build one inline or let the Limiter read it from Redis."""

    action: str
    windows: Tuple[Window, ...]
    algorithm: str = "fixed_window"
    cost: int = 1
    warn: int = 0
    ban_ms: int = 0
    ban_until_midnight: bool = False
    calendar: bool = False
    tz: str = "UTC"
    tz_offsets: str = ""  # the stored table; used only when this Python has no zone database
    count_denied: bool = False
    shadow: bool = False
    message: Optional[str] = None
    on_error: str = ""  # "" report, "allow", "deny", "insurance"
    revision: int = 0
    extra: Dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def has_ban(self) -> bool:
        return self.ban_ms > 0 or self.ban_until_midnight

    @property
    def needs_local_time(self) -> bool:
        return self.ban_until_midnight or self.calendar

    def offsets(self) -> str:
        """hit.lua's ARGV[8]."""
        if not self.needs_local_time:
            return "0"
        if self.tz.startswith("UTC") and self.tz_offsets and zones.zone(self.tz) is None:
            return self.tz_offsets  # a fixed offset of an old policy, or no zone database
        return zones.offsets_around_now(self.tz)

    @classmethod
    def from_fields(cls, action: str, fields: Mapping[Union[str, bytes], Union[str, bytes]]) -> "Policy":
        """From HGETALL. Unknown fields are ignored, malformed known ones refused (BadPolicy),
        a contract this client does not speak refused (ContractMismatch)."""
        f = {_text(k): _text(v) for k, v in fields.items()}
        contract = f.get("contract")
        if contract is not None and (not contract.isdigit() or not 1 <= int(contract) <= CONTRACT):
            raise ContractMismatch(
                f"policy {action!r} was written under script contract {contract[:20]}, and this "
                f"client follows contract {CONTRACT}: upgrade it to read the policy")
        if "windows" not in f:
            raise BadPolicy(f"policy {action!r} has no windows")
        algorithm = f.get("algorithm", "fixed_window")
        if algorithm == "gcra":
            algorithm = "token_bucket"
        if algorithm not in ALGORITHMS:
            raise BadPolicy(f"unknown algorithm {algorithm[:40]!r}")
        align = f.get("align", "first_hit")
        if align not in ("first_hit", "calendar"):
            raise BadPolicy(f"unknown align {align[:40]!r}")
        on_error = f.get("on_error", "")
        if on_error not in FAILURE_MODES:
            raise BadPolicy(f"unknown on_error {on_error[:40]!r} (allow, deny or insurance)")
        tz, offsets = f.get("tz", ""), f.get("tz_offsets", "")
        if not tz and "tz_offset_ms" in f:  # saved before zones had names: a fixed offset
            offset = _number(f, "tz_offset_ms", 0)
            tz, offsets = _fixed_zone_name(offset), str(offset)
        policy = cls(
            action=action,
            windows=parse_windows(f["windows"]),
            algorithm=algorithm,
            cost=_number(f, "cost", 1),
            warn=_number(f, "warn", 0),
            ban_ms=_number(f, "ban_ms", 0),
            ban_until_midnight=f.get("ban_until") == "midnight",
            calendar=align == "calendar",
            tz=tz or "UTC",
            tz_offsets=offsets,
            count_denied=f.get("count_denied") == "1",
            shadow=f.get("shadow") == "1",
            message=f.get("message"),
            on_error=on_error,
            revision=_number(f, "revision", 0),
            extra={k: v for k, v in f.items() if k not in _KNOWN},
        )
        policy.validate()
        return policy

    def to_fields(self) -> Dict[str, str]:
        """Field/value pairs for policy_set.lua (without the script-owned ones)."""
        out = {
            "algorithm": self.algorithm,
            "windows": ",".join(f"{w.window_ms}:{w.limit}" for w in self.windows),
            "cost": str(self.cost), "warn": str(self.warn), "ban_ms": str(self.ban_ms),
            "ban_until": "midnight" if self.ban_until_midnight else "",
            "align": "calendar" if self.calendar else "first_hit",
            "tz": self.tz, "count_denied": "1" if self.count_denied else "0",
        }
        if self.message:
            out["message"] = self.message
        if self.on_error:
            out["on_error"] = self.on_error
        if self.shadow:
            out["shadow"] = "1"
        try:  # for clients without a zone database: the offsets for 10 years (hit.lua ARGV[8])
            now = int(time.time() * 1000)
            out["tz_offsets"] = zones.offsets_text(self.tz, now - zones.DAY_MS, now + 10 * YEAR_MS)
        except ValueError:
            pass  # an unknown zone: validate() names it
        return out

    def validate(self) -> None:
        """Every rule of the C++ Policy::validate, with a message naming the field."""
        raw = self.action.encode("utf-8")
        if not raw or len(raw) > MAX_ID_BYTES:
            raise BadPolicy(f"action must be 1 to {MAX_ID_BYTES} bytes")
        if not self.windows:
            raise BadPolicy("a policy needs at least one limit and window")
        if len(self.windows) > MAX_WINDOWS:
            raise BadPolicy(f"at most {MAX_WINDOWS} windows per policy")
        if self.algorithm not in ALGORITHMS:
            raise BadPolicy(f"unknown algorithm {self.algorithm!r}")
        if self.calendar and self.algorithm != "fixed_window":
            raise BadPolicy("calendar windows need fixed_window")
        seen = set()
        for w in self.windows:
            _check_window(self, w)
            if w.window_ms in seen:
                raise BadPolicy(f"window {w.window_ms} ms appears twice")
            seen.add(w.window_ms)
        if not 1 <= self.cost <= MAX_LIMIT:
            raise BadPolicy(f"cost must be between 1 and {MAX_LIMIT}, got {self.cost}")
        first = self.windows[0].limit
        if self.warn < 0 or (self.warn > 0 and self.warn >= first):
            raise BadPolicy(f"warn level must be below the limit of the first window ({first}), got {self.warn}")
        if not 0 <= self.ban_ms <= 10 * YEAR_MS:
            raise BadPolicy("ban duration must be between 0 and 10 years")
        if self.ban_ms > 0 and self.ban_until_midnight:
            raise BadPolicy("choose a ban duration or 'until midnight', not both")
        if zones.zone(self.tz) is None and not (self.tz_offsets and self.tz.startswith("UTC")):
            raise BadPolicy(f"unknown time zone {self.tz!r} (use an IANA name such as Europe/Berlin)")
        if self.message is not None and len(self.message) > 1000:
            raise BadPolicy("deny message is longer than 1000 characters")

    def with_windows(self, windows: Sequence[Window]) -> "Policy":
        """The same policy with a limit override's windows, limits capped at what the algorithm
        holds, as hit.lua takes them (C++ withOverrideWindows)."""
        capped = []
        for w in windows:
            limit = w.limit
            if self.algorithm == "sliding_log":
                limit = min(limit, MAX_SLIDING_LOG_LIMIT)
            if self.algorithm == "token_bucket":
                limit = min(limit, w.window_ms * 1000)
            capped.append(Window(w.window_ms, limit))
        calendar = self.calendar and all(w.window_ms in CALENDAR_WINDOWS for w in capped)
        return Policy(**{**self.__dict__, "windows": tuple(capped), "calendar": calendar})


def _check_window(policy: Policy, w: Window) -> None:
    if not 1 <= w.limit <= MAX_LIMIT:
        raise BadPolicy(f"limit must be between 1 and {MAX_LIMIT}, got {w.limit}")
    if not 1 <= w.window_ms <= YEAR_MS:
        raise BadPolicy(f"window must be between 1ms and 1 year, got {w.window_ms} ms")
    if policy.calendar and w.window_ms not in CALENDAR_WINDOWS:
        raise BadPolicy(f"calendar windows are 1m, 1h, 1d or 1w, got {w.window_ms} ms")
    if policy.algorithm == "token_bucket" and w.limit > w.window_ms * 1000:
        raise BadPolicy(f"token_bucket refills at most one token per microsecond: limit at most "
                        f"{w.window_ms * 1000} for a {w.window_ms} ms window")
    if policy.algorithm == "sliding_log" and w.limit > MAX_SLIDING_LOG_LIMIT:
        raise BadPolicy(f"sliding_log keeps one entry per hit: limit at most {MAX_SLIDING_LOG_LIMIT}")


_KNOWN = {"algorithm", "windows", "cost", "warn", "ban_ms", "ban_until", "align", "tz", "tz_offsets",
          "tz_offset_ms", "count_denied", "shadow", "message", "on_error", "revision", "contract"}


def _text(value: Union[str, bytes]) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _number(fields: Dict[str, str], name: str, default: int) -> int:
    value = fields.get(name)
    if value is None:
        return default
    if not _is_integer(value):
        raise BadPolicy(f"policy field '{name}' is not an integer: {value[:40]!r}")
    return int(value)


def _fixed_zone_name(offset_ms: int) -> str:
    sign = "-" if offset_ms < 0 else "+"
    minutes = abs(offset_ms) // 60_000
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
