"""Runs the requests of core's operations on redis-py's synchronous clients (Redis, Sentinel's
master_for, RedisCluster) within a deadline: a command is sent on a connection of the pool and
its reply awaited for the time left; a connection that ran out of time is closed, so a late
reply can never answer the next command. NOSCRIPT is answered with EVAL of the same source,
which loads the script again in the same round trip (a flush, a failover, a proxy that forwards
EVAL but not SCRIPT LOAD), never with a wait."""
from __future__ import annotations

import socket
import time
from typing import Any, Optional, Sequence

import redis
from redis import exceptions as rx

from . import errors
from .core import Call, Eval, Hit, Op, Scan
from .deadline import watchdog
from .direct import Lender, read_reply

try:
    from redis.cluster import RedisCluster
except ImportError:  # pragma: no cover - redis-py without cluster support
    RedisCluster = None  # type: ignore[assignment,misc]


def classify(error: Exception) -> errors.TollgateError:
    """redis-py strips the code of the errors it has a class for: those by class."""
    if isinstance(error, rx.NoScriptError):
        return errors.NoScript(str(error))
    if isinstance(error, rx.NoPermissionError):
        return errors.NoPermission(str(error))
    return errors.from_reply(str(error))


def _read_response(conn: Any) -> Any:
    return conn.read_response()


def is_cluster(client: Any) -> bool:
    return RedisCluster is not None and isinstance(client, RedisCluster)


class SyncTransport:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.cluster = is_cluster(client)
        pool = None if self.cluster else getattr(client, "connection_pool", None)
        self._lender = Lender(pool) if Lender.suits(pool) else None

    def run(self, op: Op, timeout: Optional[float]) -> Any:
        """Drives an operation to its end; each request gets the time left of `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        send, throw = op.send, op.throw
        try:
            request = send(None)
            while True:
                try:
                    result = self.execute(request, deadline, timeout)
                except errors.TollgateError as error:
                    request = throw(error)
                else:
                    request = send(result)
        except StopIteration as done:
            return done.value

    def execute(self, request: Any, deadline: Optional[float], timeout: Optional[float]) -> Any:
        if type(request) is Hit:
            if self.cluster:  # a cluster may redirect: the command by its parts
                return self.evaluate(request.unpacked(), deadline, timeout)
            try:
                return self.command(request.packed, None, deadline, timeout)
            except errors.NoScript:
                return self.evaluate(request.unpacked(), deadline, timeout, by_sha=False)
        if type(request) is Eval:
            return self.evaluate(request, deadline, timeout)
        if type(request) is Call:
            return self.command(request.args, request.key, deadline, timeout)
        if type(request) is Scan:
            return self.scan(request)
        raise TypeError(f"unknown request {request!r}")

    def evaluate(self, request: Eval, deadline: Optional[float], timeout: Optional[float],
                 by_sha: bool = True) -> Any:
        key = request.keys[0] if request.keys else None
        if by_sha:
            try:
                return self.command((b"EVALSHA_RO" if request.readonly else b"EVALSHA", request.script.sha,
                                     len(request.keys), *request.keys, *request.args), key, deadline, timeout)
            except errors.NoScript:
                pass
        again = (b"EVAL_RO" if request.readonly else b"EVAL", request.script.source,
                 len(request.keys), *request.keys, *request.args)
        return self.command(again, key, deadline, timeout)

    def _node_client(self, key: Optional[bytes]) -> Any:
        if not self.cluster:
            return self.client
        node = self.client.get_node_from_key(key) if key is not None else self.client.get_default_node()
        return self.client.get_redis_connection(node)

    def command(self, args: Sequence[Any], key: Optional[bytes], deadline: Optional[float],
                timeout: Optional[float]) -> Any:
        client = self._node_client(key)
        pool = client.connection_pool
        # A hit already in RESP on a plain pool: the direct round trip (direct.py).
        direct = self._lender is not None and isinstance(args, bytes)
        try:
            conn = self._lender.take() if direct else None
            if conn is None:
                direct = False
                conn = pool.get_connection("EVALSHA" if isinstance(args, bytes) else args[0])
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None
        read = read_reply if direct else _read_response
        try:
            if direct:
                conn._sock.sendall(args)
            elif isinstance(args, bytes):
                conn.send_packed_command([args])
            else:
                conn.send_command(*args)
            if deadline is None:
                return read(conn)
            if deadline <= time.monotonic():
                conn.disconnect()
                raise errors.unavailable(None, timeout)
            watched = watchdog.watch(conn._sock, deadline)
            try:
                response = read(conn)
            except (rx.ConnectionError, rx.TimeoutError, OSError):
                if watchdog.done(watched):  # the watchdog ended the read: the deadline passed
                    raise errors.unavailable(None, timeout) from None
                raise
            except BaseException:  # an error reply: the connection goes back to the pool
                if watchdog.done(watched):
                    conn.disconnect()
                raise
            if watchdog.done(watched):  # ended just as the reply came: the reply stands
                conn.disconnect()
            return response
        except errors.TollgateError:
            raise
        except (rx.TimeoutError, socket.timeout):
            conn.disconnect()  # its reply may still come: never read it as another's
            raise errors.unavailable(None, timeout) from None
        except (rx.MovedError, rx.AskError, rx.TryAgainError) as moved:
            if not self.cluster:
                raise errors.from_reply(str(moved)) from None
            return self._through_cluster(args)
        except rx.ResponseError as error:
            raise classify(error) from None
        except (rx.ConnectionError, rx.TimeoutError, OSError, rx.InvalidResponse) as error:
            conn.disconnect()
            raise errors.unavailable(error) from None
        finally:
            if direct:
                self._lender.give_back(conn)
            else:
                pool.release(conn)

    def _through_cluster(self, args: Sequence[Any]) -> Any:
        """A slot moved: redis-py's own cluster client follows it and refreshes its slot map."""
        try:
            name = args[0].decode() if isinstance(args[0], bytes) else args[0]
            return self.client.execute_command(name, *args[1:])
        except rx.ResponseError as error:
            raise classify(error) from None
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None

    def scan(self, request: Scan) -> list:
        client = self._node_client(request.key)
        try:
            return list(client.scan_iter(match=request.pattern, count=1000))
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None
        except rx.ResponseError as error:
            raise classify(error) from None


__all__ = ["SyncTransport", "is_cluster", "redis"]
