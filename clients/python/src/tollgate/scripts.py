"""The assembled scripts shipped in this package (copied from the build's `build/lua`, never
edited) and the contract they follow."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable

from .errors import TollgateError
from .policy import CONTRACT

SCRIPT_DIR = Path(__file__).with_name("lua")
# The scripts this client calls; the contract check asks each of them.
USED = ("hit", "refund", "ban", "unban", "reset", "override_set", "override_delete",
        "policy_set", "policy_delete", "stats")


class Script:
    """One assembled script: its source and SHA1, as EVALSHA and EVAL want them."""

    __slots__ = ("name", "source", "sha")

    def __init__(self, name: str, source: bytes) -> None:
        self.name = name
        self.source = source
        self.sha = hashlib.sha1(source).hexdigest()

    def __repr__(self) -> str:
        return f"Script({self.name!r}, sha={self.sha})"


@lru_cache(maxsize=None)
def packaged() -> Dict[str, Script]:
    """Every script of the package, by name (hit, refund, ...)."""
    found = {path.stem: Script(path.stem, path.read_bytes()) for path in SCRIPT_DIR.glob("*.lua")}
    missing = [name for name in USED if name not in found]
    if missing:
        raise TollgateError(
            f"the package holds no {', '.join(missing)}.lua in {SCRIPT_DIR}: it was built without "
            "the assembled scripts (clients/python/package.sh copies them from build/lua)")
    return found


def contract_message(script: str, answer: object) -> str:
    return (f"{script}.lua answers script contract {answer!r}, and this client follows contract "
            f"{CONTRACT}: the scripts and the client come from different Tollgate versions "
            "(lua/README.md, \"Contract version\")")


def names(scripts: Iterable[str] = USED) -> Iterable[str]:
    return scripts
