"""Deadlines for the synchronous transport without a system call per read: a read runs
blocking, as redis-py's own do, and one watchdog thread shuts down the socket of a read that
has overrun its deadline, which ends that read at once. (Polling the socket with the time left
cost a poll() per hit, a socket timeout four ioctl() and a poll(): a tenth of a Python client's
time per hit.)"""
from __future__ import annotations

import socket
import threading
import time
from typing import Optional, Set

TICK_S = 0.005  # a read ends at most this long after its deadline


class Watched:
    """One read in flight. `finish()` says whether the watchdog ended it (its socket is then
    shut down and must not be used again)."""

    __slots__ = ("sock", "deadline", "lock", "state")

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.lock = threading.Lock()
        self.state = 0  # 0 reading, 1 finished, 2 ended by the watchdog

    def finish(self) -> bool:
        with self.lock:
            ended = self.state == 2
            self.state = 1
        return ended


class Watchdog:
    def __init__(self) -> None:
        self._reads: Set[Watched] = set()
        self._thread: Optional[threading.Thread] = None
        self._start = threading.Lock()

    def watch(self, sock: socket.socket, deadline: float) -> Watched:
        if self._thread is None:
            self._start_thread()
        read = Watched(sock, deadline)
        self._reads.add(read)
        return read

    def done(self, read: Watched) -> bool:
        self._reads.discard(read)
        return read.finish()

    def _start_thread(self) -> None:
        with self._start:
            if self._thread is None:
                thread = threading.Thread(target=self._run, name="tollgate-deadlines", daemon=True)
                thread.start()
                self._thread = thread

    def _run(self) -> None:
        while True:
            time.sleep(TICK_S)
            if not self._reads:
                continue
            now = time.monotonic()
            for read in list(self._reads):
                if read.deadline <= now:
                    with read.lock:
                        if read.state != 0:
                            continue
                        read.state = 2
                    try:
                        read.sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


watchdog = Watchdog()
