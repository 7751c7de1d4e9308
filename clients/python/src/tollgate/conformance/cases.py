"""Reads conformance cases (CONFORMANCE format v1) and compares results with expectations."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

# The fields a step of each op may have besides `op`, `expect` and `comment`: anything else is
# an error, so a typo cannot pass silently.
STEP_FIELDS = {
    "hit": {"action", "user", "cost", "repeat", "client"},
    "peek": {"action", "user", "cost", "repeat", "client"},
    "refund": {"action", "user", "cost", "repeat", "client", "actor", "reason"},
    "penalize": {"action", "user", "cost", "repeat", "client", "actor", "reason"},
    "ban": {"user", "action", "ms", "reason", "actor"},
    "unban": {"user", "action", "reason", "actor"},
    "reset": {"user", "action", "reason", "actor"},
    "override": {"user", "action", "windows", "unlimited", "ms", "reason", "actor"},
    "policy": {"action", "fields", "delete"},
    "sleep": {"ms"},
    "redis": {"command"},
    "freeze": set(),
    "thaw": set(),
    "check": set(),
}
RUNNER = "python"  # this runner's name in a case's `skip`
COMMON = {"op", "expect", "comment"}


class CaseError(Exception):
    """The case itself is malformed (not a client's failure)."""


class Mismatch(Exception):
    def __init__(self, field: str, expected: Any, got: Any) -> None:
        super().__init__(f"{field} expected {json.dumps(expected)} got {json.dumps(got)}")


def case_files(directory: Path) -> List[Path]:
    return sorted(directory.glob("*.json"))


def default_cases_dir() -> Optional[Path]:
    """conformance/cases of the repository this package sits in, when it does."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "conformance" / "cases"
        if candidate.is_dir():
            return candidate
    return None


def load(path: Path) -> Dict[str, Any]:
    case = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(case, dict) or not isinstance(case.get("steps"), list):
        raise CaseError("a case is an object with a list of steps")
    for number, step in enumerate(case["steps"], 1):
        op = step.get("op")
        if op not in STEP_FIELDS:
            raise CaseError(f"step {number}: unknown op {op!r}")
        unknown = set(step) - STEP_FIELDS[op] - COMMON
        if unknown:
            raise CaseError(f"step {number}: unknown keys {sorted(unknown)} for op {op}")
    return case


def identifier(value: Any) -> Any:
    """A step's id: a string, {"repeat": "a", "times": n} or {"hex": "ff41"} (raw bytes)."""
    if isinstance(value, dict):
        if "hex" in value:
            return bytes.fromhex(value["hex"])
        if "repeat" in value:
            return (value["repeat"] * int(value["times"])).encode("utf-8")
        raise CaseError(f"an id object is {{'repeat', 'times'}} or {{'hex'}}, not {sorted(value)}")
    return value


def skip_reason(case: Dict[str, Any]) -> Optional[str]:
    return (case.get("skip") or {}).get(RUNNER)


BOUNDARY_TOLERANCE_MS = 2000


def near_boundary(have_ms: int, want: Dict[str, int]) -> bool:
    """{"until_boundary": P, "utc_offset_ms": O}: the ms to the next t with (t + O) % P == 0,
    within 2 s (a calendar window or a ban until midnight, seen from this clock)."""
    period, offset = int(want["until_boundary"]), int(want["utc_offset_ms"])
    now = int(time.time() * 1000)
    distance = (have_ms - (period - (now + offset) % period)) % period
    return min(distance, period - distance) <= BOUNDARY_TOLERANCE_MS


def compare(expect: Dict[str, Any], got: Dict[str, Any]) -> None:
    """Only the fields given; numbers exact or [lo, hi] inclusive."""
    for field, wanted in expect.items():
        if field == "keys_without_ttl":
            continue
        if field not in got:
            raise Mismatch(field, wanted, "(not in this step's result)")
        value = got[field]
        if isinstance(wanted, dict) and "until_boundary" in wanted:
            if not isinstance(value, int) or not near_boundary(value, wanted):
                raise Mismatch(field, wanted, value)
        elif isinstance(wanted, list) and len(wanted) == 2 and all(isinstance(x, int) for x in wanted):
            if not isinstance(value, int) or isinstance(value, bool) or not wanted[0] <= value <= wanted[1]:
                raise Mismatch(field, wanted, value)
        elif isinstance(wanted, bool) or isinstance(value, bool):
            if value is not wanted:
                raise Mismatch(field, wanted, value)
        elif value != wanted:
            raise Mismatch(field, wanted, value)
