"""A hit's round trip on a plain redis-py connection, without what redis-py adds per command.

redis-py's pool calls getpid() twice and probes the socket with three system calls (a
non-blocking recv between two settimeout) every time it lends a connection, and its pure-Python
parser reads hit.lua's 7-element reply in eight calls. Here a connection is taken from the same
pool under the pool's own lock, checked with one poll() (a connection closed by the server, or
with bytes nobody read, is opened again, as redis-py would), and the reply is read from the socket
in one recv and parsed here. A process that forked, another pool or connection class, a health
check interval or RESP3 go through redis-py as before."""
from __future__ import annotations

import os
import select
import socket
from typing import Any, List, Optional, Tuple

from redis import exceptions as rx
from redis.connection import Connection, ConnectionPool, UnixDomainSocketConnection

READ_SIZE = 65536
_PID = [os.getpid()]  # os.getpid() is a system call; kept current across fork instead
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))
_PLAIN_CONNECTIONS = (Connection, UnixDomainSocketConnection)


class Incomplete(Exception):
    """More bytes are needed for the reply."""


def _parse_at(data: bytes, pos: int) -> Tuple[Any, int]:
    """One RESP2 value at `pos` (any nesting, any bulk content): the slow, general reader."""
    end = data.find(b"\r\n", pos)
    if end < 0:
        raise Incomplete
    kind, line = data[pos], data[pos + 1:end]
    if kind == 58:  # ':'
        return int(line), end + 2
    if kind == 36:  # '$'
        size = int(line)
        if size < 0:
            return None, end + 2
        stop = end + 2 + size
        if len(data) < stop + 2:
            raise Incomplete
        return data[end + 2:stop], stop + 2
    if kind == 42:  # '*'
        count = int(line)
        if count < 0:
            return None, end + 2
        items: List[Any] = []
        pos = end + 2
        for _ in range(count):
            item, pos = _parse_at(data, pos)
            items.append(item)
        return items, pos
    if kind == 43:  # '+'
        return line, end + 2
    if kind == 45:  # '-'
        return ErrorReply(line.decode("utf-8", "replace")), end + 2
    raise rx.InvalidResponse(f"Protocol Error: {data[pos:end]!r}")


class ErrorReply(str):
    """An error reply's text (turned into redis-py's exception by the caller)."""


def parse_reply(data: bytes) -> Any:
    """The one RESP2 reply `data` holds; Incomplete when it holds less. A flat array of
    integers and short strings (every hit.lua reply) is read by splitting at CRLF."""
    if data[:1] == b"*":
        parts = data.split(b"\r\n")
        count = int(parts[0][1:])
        if 0 <= count and len(parts) >= count + 2 and not parts[-1]:
            items: List[Any] = []
            i = 1
            for _ in range(count):
                part = parts[i]
                kind = part[:1]
                if kind == b":":
                    items.append(int(part[1:]))
                    i += 1
                elif kind == b"$" and part != b"$-1" and i + 1 < len(parts) and \
                        len(parts[i + 1]) == int(part[1:]):
                    items.append(parts[i + 1])
                    i += 2
                else:
                    break
            else:
                if i == len(parts) - 1:
                    return items
    value, end = _parse_at(data, 0)
    if end != len(data):
        raise rx.InvalidResponse("Protocol Error: more than one reply")
    return value


def read_reply(conn: Any) -> Any:
    """Reads one reply from `conn`'s socket, raising redis-py's exceptions as its own read
    would (an error reply as the class redis-py gives it)."""
    sock = conn._sock
    data = sock.recv(READ_SIZE)
    while True:
        if not data:
            raise rx.ConnectionError("Connection closed by server.")
        try:
            reply = parse_reply(data)
            break
        except Incomplete:
            more = sock.recv(READ_SIZE)
            data = data + more if more else b""
    if isinstance(reply, ErrorReply):
        error = conn._parser.parse_error(str(reply))
        raise error
    return reply


class Lender:
    """Lends connections of one plain redis-py ConnectionPool for hits: the pool's own lists
    under its lock, so the application's commands and the hits share the same connections."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    @staticmethod
    def suits(pool: Any) -> bool:
        kwargs = getattr(pool, "connection_kwargs", {})
        return (type(pool) is ConnectionPool and pool.connection_class in _PLAIN_CONNECTIONS
                and not kwargs.get("health_check_interval")
                and str(kwargs.get("protocol", 2)) == "2"
                and all(hasattr(pool, name) for name in
                        ("_lock", "_available_connections", "_in_use_connections", "pid")))

    def take(self) -> Optional[Any]:
        """A connected connection with nothing to read, or None: ask redis-py instead."""
        pool = self.pool
        if pool.pid != _PID[0]:
            return None  # forked: redis-py's get_connection resets the pool
        with pool._lock:
            try:
                conn = pool._available_connections.pop()
            except IndexError:
                return None
            pool._in_use_connections.add(conn)
        sock = conn._sock
        if sock is None or _parser_holds_bytes(conn._parser) or _readable(sock):
            try:
                conn.disconnect()
                conn.connect()
            except BaseException:
                self.give_back(conn)
                raise
        return conn

    def give_back(self, conn: Any) -> None:
        pool = self.pool
        if pool.pid != _PID[0] or conn.pid != pool.pid:
            pool.release(conn)
            return
        with pool._lock:
            pool._in_use_connections.discard(conn)
            pool._available_connections.append(conn)


def _parser_holds_bytes(parser: Any) -> bool:
    """A reply (or part of one) redis-py read but nobody took: the connection is out of step."""
    buffer = getattr(parser, "_buffer", None)
    if buffer is not None:
        unread = getattr(buffer, "unread_bytes", None)  # redis-py 4.5 and later
        if (unread() if unread is not None else getattr(buffer, "length", 0)):
            return True
    return getattr(parser, "_next_response", False) is not False  # hiredis' parser


def _readable(sock: socket.socket) -> bool:
    """Bytes or an end of file wait on an idle connection: it cannot take a command."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


__all__ = ["Lender", "read_reply", "parse_reply", "Incomplete"]
