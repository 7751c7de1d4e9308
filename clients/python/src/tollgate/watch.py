"""Keeps cached policies current from the events channel, as the C++ Limiter's users do: a
`policy` event drops that action's policy, a (re)subscription drops them all (changes made while
unsubscribed were missed)."""
from __future__ import annotations

import threading
from typing import Any, Callable

from .core import Core

RETRY_S = 0.5


class PolicyWatch(threading.Thread):
    def __init__(self, client: Any, core: Core) -> None:
        super().__init__(name="tollgate-policy-watch", daemon=True)
        self.client = client
        self.core = core
        self.subscribed = threading.Event()
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        while not self._stop.is_set():
            pubsub = None
            try:
                pubsub = self.client.pubsub()
                pubsub.subscribe(self.core.layout.events)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message:
                        handle(message, self.core, self.subscribed.set)
            except Exception:  # noqa: BLE001 - Redis away: drop what may go stale, try again
                self.subscribed.clear()
                self.core.forget_policies()
                self._stop.wait(RETRY_S)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # noqa: BLE001
                        pass


def handle(message: dict, core: Core, on_subscribed: Callable[[], None]) -> None:
    kind = message.get("type")
    if kind in ("subscribe", b"subscribe"):
        core.forget_policies()
        on_subscribed()
    elif kind in ("message", b"message"):
        core.on_event(message.get("data") or b"")
