"""Typed errors. Each has a `kind`, the word the conformance suite and the other clients use."""
from __future__ import annotations

from typing import Optional


class TollgateError(Exception):
    """Base of every error this package raises."""

    kind = "error"


class InvalidArgument(TollgateError, ValueError):
    """A bad argument: refused here before any call, or by a script (TG_INVALID)."""

    kind = "invalid"


class CorruptData(TollgateError):
    """A key of ours holds a value of the wrong shape or type (TG_CORRUPT, WRONGTYPE)."""

    kind = "corrupt"


class NoPolicy(TollgateError, LookupError):
    """No policy is stored for the action (and none was given inline)."""

    kind = "no_policy"

    def __init__(self, action: str, key: str) -> None:
        super().__init__(f"no policy for action {action!r} (the hash {key} does not exist)")
        self.action = action


class BadPolicy(TollgateError, ValueError):
    """The policy hash (or the inline policy) is malformed: the message names the field."""

    kind = "bad_policy"


class ContractMismatch(TollgateError):
    """A script or a policy hash of another script contract (lua/README.md, "Contract version")."""

    kind = "contract"


class NoPermission(TollgateError):
    """The ACL user may not run a write the call needs; nothing was written (TG_NOPERM)."""

    kind = "noperm"


class Conflict(TollgateError):
    """A policy was saved by someone else meanwhile (TG_CONFLICT)."""

    kind = "conflict"


class NotFound(TollgateError, LookupError):
    """What the call names does not exist (TG_NOTFOUND)."""

    kind = "notfound"


class Unavailable(TollgateError, ConnectionError):
    """Redis did not answer in time (or not at all) and the failure policy is `report`."""

    kind = "unavailable"


class ServerError(TollgateError):
    """Any other error reply from Redis."""

    kind = "server"


class Redirect(TollgateError):
    """hit.lua / refund.lua answered TG_OVERRIDE: the user's override has other windows.
    Handled inside the client (at most two redirects), never seen by a caller."""

    kind = "redirect"

    def __init__(self, target: str) -> None:
        super().__init__(f"TG_OVERRIDE {target}")
        self.target = target


class NoScript(TollgateError):
    """NOSCRIPT: handled by the transport (EVAL instead), never seen by a caller."""

    kind = "noscript"


_PREFIXES = (
    ("TG_INVALID", InvalidArgument),
    ("TG_CORRUPT", CorruptData),
    ("WRONGTYPE", CorruptData),
    ("TG_NOPERM", NoPermission),
    ("NOPERM", NoPermission),
    ("TG_CONFLICT", Conflict),
    ("TG_NOTFOUND", NotFound),
    ("TG_CONTRACT", ContractMismatch),
    ("NOSCRIPT", NoScript),
    # Redis is there but cannot run anything now: as good as away for a failure policy.
    ("BUSY", Unavailable),
    ("LOADING", Unavailable),
    ("MASTERDOWN", Unavailable),
    ("CLUSTERDOWN", Unavailable),
    ("TRYAGAIN", Unavailable),
)


def from_reply(message: str) -> TollgateError:
    """The one place that reads Redis error replies: a typed error for `message`."""
    if message.startswith("TG_OVERRIDE "):
        return Redirect(message[len("TG_OVERRIDE "):].split("\n", 1)[0].strip())
    for prefix, kind in _PREFIXES:
        if message.startswith(prefix):
            return kind(message)
    return ServerError(message)


def unavailable(why: object, timeout: Optional[float] = None) -> Unavailable:
    if timeout is not None:
        return Unavailable(f"Redis did not answer within {timeout * 1000:.0f} ms")
    return Unavailable(f"Redis is unavailable: {why}")
