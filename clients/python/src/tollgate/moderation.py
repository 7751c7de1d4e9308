"""Support's writes (ban, unban, reset, overrides, policies), each through its script, which
writes the audit entries with the change or nothing (lua/README.md). Generators, as in core."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Dict, List, Mapping, Optional, Sequence, Union

from .core import Call, Core, Eval, Op, Scan, require_actor_and_reason
from .errors import InvalidArgument
from .keys import Id, as_bytes, check_id, escape
from .policy import Window

Duration = Union[timedelta, int, None]  # an int is milliseconds
STATE_CODES = (b"fw", b"sl", b"sw", b"tb")


@dataclass(frozen=True)
class Ban:
    until_ms: int  # 0: permanent
    created_ms: int

    @property
    def until(self) -> Optional[datetime]:
        return None if self.until_ms == 0 else datetime.fromtimestamp(self.until_ms / 1000, timezone.utc)


@dataclass(frozen=True)
class OverrideSet:
    until_ms: int  # 0: permanent
    set_ms: int
    key_end_ms: int  # -1: the user has a permanent override


def to_ms(value: Duration, what: str) -> int:
    if value is None:
        return 0
    ms = int(value.total_seconds() * 1000) if isinstance(value, timedelta) else value
    if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
        raise InvalidArgument(f"{what} must be a timedelta or milliseconds >= 0, got {value!r}")
    return ms


def until_ms(until: Optional[datetime]) -> int:
    if until is None:
        return 0
    if until.tzinfo is None:
        raise InvalidArgument("until must be an aware datetime (with a time zone)")
    return int(until.timestamp() * 1000)


def _audit(core: Core, user: bytes) -> List[bytes]:
    stream = core.layout.user_base(escape(user)) + b":audit"
    return [stream, core.layout.audit_mirror(stream)]


def _action_arg(action: Optional[str]) -> bytes:
    return b"" if action is None else check_id(action, "action")


def ban(core: Core, user: Id, action: Optional[str], duration: Duration, until: Optional[datetime],
        reason: str, actor: str) -> Op:
    raw, act = check_id(user, "user id"), _action_arg(action)
    require_actor_and_reason(actor, reason)
    duration_ms, end_ms = to_ms(duration, "duration"), until_ms(until)
    if duration_ms and end_ms:
        raise InvalidArgument("give a ban duration or an end time, not both")
    base = core.layout.user_base(escape(raw))
    key = base + (b":" + escape(act) + b":ban" if act else b":ban")
    reply = yield Eval(core.scripts["ban"], [key, *_audit(core, raw)],
                       [raw, act, actor, reason, duration_ms, end_ms, core.layout.events])
    stats = core.layout.stats_key(escape(act) if act else b"*")
    try:  # the console's count of manual bans; a user who may ban but not count still bans
        yield Eval(core.scripts["stats"], [stats], [b"counts", 0, 0, 0, 0, 0, 0, 1])
    except Exception:  # noqa: BLE001 - statistics are best effort
        pass
    return Ban(int(reply[0]), int(reply[1]))


def _user_keys(core: Core, raw: bytes) -> Op:
    """The user's keys as (key, parts after `<p>:{<user>}:`), from SCAN on the user's node."""
    base = core.layout.user_base(escape(raw))
    found = yield Scan(base + b":*", base)
    head = base + b":"
    return [(key, key[len(head):].split(b":")) for key in map(as_bytes, found) if key.startswith(head)]


def unban(core: Core, user: Id, action: Optional[str], reason: str, actor: str) -> Op:
    raw, act = check_id(user, "user id"), _action_arg(action)
    require_actor_and_reason(actor, reason)
    base = core.layout.user_base(escape(raw))
    if act:
        targets = [base + b":" + escape(act) + b":ban"]
    else:
        keys = yield from _user_keys(core, raw)
        targets = [k for k, parts in keys if parts == [b"ban"] or (len(parts) == 2 and parts[1] == b"ban")]
        if base + b":ban" not in targets:
            targets.append(base + b":ban")
    reply = yield Eval(core.scripts["unban"], [*_audit(core, raw), *targets],
                       [raw, act, actor, reason, core.layout.events])
    return int(reply)


def reset(core: Core, user: Id, action: Optional[str], reason: str, actor: str) -> Op:
    raw, act = check_id(user, "user id"), _action_arg(action)
    require_actor_and_reason(actor, reason)
    wanted = escape(act) if act else None
    keys = yield from _user_keys(core, raw)
    targets = [k for k, p in keys if len(p) == 3 and p[1] in STATE_CODES and p[2].isdigit()
               and (wanted is None or p[0] == wanted)]
    reply = yield Eval(core.scripts["reset"], [*_audit(core, raw), *targets],
                       [raw, act, actor, reason, core.layout.events])
    return int(reply)


def _override_keys(core: Core, raw: bytes) -> List[bytes]:
    overrides = core.layout.user_base(escape(raw)) + b":overrides"
    # On a cluster the index is in no user's slot: the hash again means "none", and the
    # client writes the index member after the script (lua/README.md, "Overrides").
    index = overrides if core.layout.cluster else core.layout.override_index
    return [overrides, *_audit(core, raw), index]


def _index_after(core: Core, raw: bytes, key_end: int) -> Op:
    if not core.layout.cluster:
        return
    index, member = core.layout.override_index, escape(raw)
    if key_end == 0:
        yield Call((b"ZREM", index, member), index)
    else:
        yield Call((b"ZADD", index, b"+inf" if key_end < 0 else key_end, member), index)


def windows_text(windows: Union[str, Sequence[Window], Sequence[Sequence[int]]]) -> str:
    if isinstance(windows, str):
        return windows
    return ",".join(f"{int(w[0])}:{int(w[1])}" for w in windows)


def set_override(core: Core, user: Id, action: str, windows: Optional[object], unlimited: bool,
                 duration: Duration, until: Optional[datetime], reason: str, actor: str) -> Op:
    raw, act = check_id(user, "user id"), check_id(action, "action")
    require_actor_and_reason(actor, reason)
    if unlimited == (windows is not None):
        raise InvalidArgument("give windows (a limit override) or unlimited=True, one of the two")
    text = "" if unlimited else windows_text(windows)  # type: ignore[arg-type]
    reply = yield Eval(core.scripts["override_set"], _override_keys(core, raw),
                       [raw, act, actor, reason, b"unlimited" if unlimited else b"limit", text,
                        to_ms(duration, "duration"), until_ms(until), core.layout.events])
    result = OverrideSet(int(reply[0]), int(reply[1]), int(reply[2]))
    yield from _index_after(core, raw, result.key_end_ms)
    return result


def delete_override(core: Core, user: Id, action: str, reason: str, actor: str) -> Op:
    raw, act = check_id(user, "user id"), check_id(action, "action")
    require_actor_and_reason(actor, reason)
    reply = yield Eval(core.scripts["override_delete"], _override_keys(core, raw),
                       [raw, act, actor, reason, core.layout.events])
    yield from _index_after(core, raw, int(reply[1]))
    return int(reply[0]) == 1


def _policy_keys(core: Core, action: str) -> List[bytes]:
    escaped = escape(check_id(action, "action"))
    layout = core.layout
    return [layout.policy_key(escaped), layout.policy_audit, layout.policy_index,
            layout.policy_history_key(escaped)]


def _revision(key: bytes, revision: Optional[int]) -> Op:
    if revision is not None:
        return revision
    stored = yield Call((b"HGET", key, b"revision"), key)
    return int(stored) if stored else 0


def put_policy(core: Core, action: str, fields: Mapping[str, str], actor: str, reason: str,
               revision: Optional[int]) -> Op:
    """policy_set.lua; `revision` None: over whatever is stored (compare-and-set otherwise)."""
    require_actor_and_reason(actor, reason, reason_required=False)
    keys = _policy_keys(core, action)
    expected = yield from _revision(keys[0], revision)
    pairs: List[object] = []
    for name, value in fields.items():
        pairs += [name, value]
    try:
        new = yield Eval(core.scripts["policy_set"], keys,
                         [expected, actor, core.layout.events, reason, *pairs])
    finally:
        core.forget_policies(escape(action.encode()))
    return int(new)


def delete_policy(core: Core, action: str, actor: str, reason: str, revision: Optional[int]) -> Op:
    require_actor_and_reason(actor, reason, reason_required=False)
    keys = _policy_keys(core, action)
    expected = yield from _revision(keys[0], revision)
    try:
        deleted = yield Eval(core.scripts["policy_delete"], keys,
                             [expected, actor, core.layout.events, reason])
    finally:
        core.forget_policies(escape(action.encode()))
    return int(deleted) == 1


def policy_fields(policy_like: Union[Mapping[str, str], object]) -> Dict[str, str]:
    to_fields = getattr(policy_like, "to_fields", None)
    return to_fields() if to_fields else dict(policy_like)  # type: ignore[call-overload]
