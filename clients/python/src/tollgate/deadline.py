"""Deadlines for the synchronous transport without a system call per read: a read runs
blocking, as redis-py's own do, and one watchdog thread shuts down the socket of a read that
has overrun its deadline, which ends that read at once. (Polling the socket with the time left
cost a poll() per hit, a socket timeout four ioctl() and a poll(): a tenth of a Python client's
time per hit.)

The watchdog sleeps until the soonest deadline it knows of, and is woken only by a read whose
deadline comes sooner than that (the first read after a quiet spell, a call with a shorter
timeout): under a steady load of hits with one timeout it wakes about once per timeout, not
once per hit nor every few milliseconds. Whoever takes a read out of the table first owns its
end (a dict's pop is atomic): the reader, which got its reply, or the watchdog, which shuts the
socket down."""
from __future__ import annotations

import itertools
import math
import socket
import threading
import time
from typing import Dict, Optional, Tuple


class Watchdog:
    def __init__(self) -> None:
        self._reads: Dict[int, Tuple[socket.socket, float]] = {}
        self._tokens = itertools.count()
        self._wake = threading.Condition(threading.Lock())
        self._wake_at = math.inf  # when the watchdog looks next; inf while it plans or idles
        self._thread: Optional[threading.Thread] = None

    def watch(self, sock: socket.socket, deadline: float) -> int:
        """Starts watching a read; the token to give done()."""
        token = next(self._tokens)
        self._reads[token] = (sock, deadline)
        if deadline < self._wake_at:
            with self._wake:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="tollgate-deadlines",
                                                    daemon=True)
                    self._thread.start()
                self._wake.notify()
        return token

    def done(self, token: int) -> bool:
        """The read ended; True when the watchdog ended it (its socket is shut down and must
        not be used again)."""
        return self._reads.pop(token, None) is None

    def _run(self) -> None:
        with self._wake:
            while True:
                self._wake_at = math.inf  # a read watched from here on wakes us
                now = time.monotonic()
                soonest = math.inf
                for token, (sock, deadline) in list(self._reads.items()):
                    if deadline > now:
                        soonest = min(soonest, deadline)
                    elif self._reads.pop(token, None) is not None:
                        try:
                            sock.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                self._wake_at = soonest
                self._wake.wait(None if soonest == math.inf else soonest - now)


watchdog = Watchdog()
